import type { ServerClock } from "../../core/server-clock.js";
import { axiosInstance } from "./axios-instance.js";

interface AxiosLike {
  interceptors: {
    response: {
      use(
        onOk: (r: { headers?: Record<string, unknown> }) => unknown,
        onError: (e: unknown) => unknown,
      ): unknown;
    };
  };
}

/** Every answer's `Date` header, errors' included, into the site's clock (core/server-clock.ts). */
export function watchServerDate(client: object, clock: ServerClock): void {
  const axios = axiosInstance(client) as AxiosLike | undefined;
  if (axios === undefined) return;
  axios.interceptors.response.use(
    (response) => {
      clock.observe(response.headers?.date);
      return response;
    },
    (error: unknown): never => {
      clock.observe(
        (error as { response?: { headers?: Record<string, unknown> } }).response?.headers?.date,
      );
      // Handed on unchanged to jira.js.
      throw error instanceof Error ? error : new Error(String(error));
    },
  );
}
