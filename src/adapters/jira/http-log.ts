import type { Logger } from "../../core/logger.js";
import { AsyncLocalStorage } from "node:async_hooks";
import { axiosInstance } from "./axios-instance.js";

/** The call a request belongs to (its operation and item), for the debug line. */
interface CallLabel {
  readonly operation: string;
  readonly id?: string | undefined;
}

/** A pino-compatible debug logger. */
interface AxiosConfigLike {
  method?: string;
  url?: string;
  baseURL?: string;
  startedAt?: number;
}
interface AxiosLike {
  interceptors: {
    request: { use(onOk: (c: AxiosConfigLike) => AxiosConfigLike): unknown };
    response: {
      use(
        onOk: (r: { status: number; config: AxiosConfigLike }) => unknown,
        onError: (e: unknown) => unknown,
      ): unknown;
    };
  };
}

const current = new AsyncLocalStorage<CallLabel>();

/** Runs a jira.js call with its label, so each HTTP request it makes is logged with it. */
export function labelled<T>(label: CallLabel, fn: () => Promise<T>): Promise<T> {
  return current.run(label, fn);
}

function pathOf(config: AxiosConfigLike): string {
  const url = config.url ?? "";
  try {
    return new URL(url, config.baseURL ?? "http://localhost").pathname;
  } catch {
    return url;
  }
}

/**
 * One debug line per HTTP request a jira.js client makes: method, path, status (or the network
 * error's code), duration, and the operation and item of the call it belongs to.
 */
export function logHttpRequests(client: object, logger: Logger | undefined): void {
  const axios = axiosInstance(client) as AxiosLike | undefined;
  if (logger === undefined || axios === undefined) return;
  axios.interceptors.request.use((config) => {
    config.startedAt = Date.now();
    return config;
  });
  const line = (config: AxiosConfigLike | undefined, status: number | string): void => {
    const label = current.getStore();
    logger.debug(
      {
        method: (config?.method ?? "GET").toUpperCase(),
        path: config === undefined ? "" : pathOf(config),
        status,
        ms: config?.startedAt === undefined ? undefined : Date.now() - config.startedAt,
        operation: label?.operation,
        item: label?.id,
      },
      "http",
    );
  };
  axios.interceptors.response.use(
    (response) => {
      line(response.config, response.status);
      return response;
    },
    (error: unknown): never => {
      const e = error as {
        config?: AxiosConfigLike;
        response?: { status?: number };
        code?: string;
      };
      line(e.config, e.response?.status ?? e.code ?? "error");
      // axios rejects with its own error objects; hand them on unchanged to jira.js.
      throw error instanceof Error ? error : new Error(String(error));
    },
  );
}
