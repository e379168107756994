import type { ServerClock } from "../../core/server-clock.js";

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

function axiosOf(client: object): AxiosLike | undefined {
  // jira.js keeps its axios instance in a field the typings call private.
  const instance = (client as { instance?: unknown }).instance;
  const ok = typeof instance === "function" || (typeof instance === "object" && instance !== null);
  return ok && "interceptors" in instance ? (instance as AxiosLike) : undefined;
}

/** Every answer's `Date` header, errors' included, into the site's clock (core/server-clock.ts). */
export function watchServerDate(client: object, clock: ServerClock): void {
  const axios = axiosOf(client);
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
