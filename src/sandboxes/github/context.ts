import type { TokenAccess } from "./access.js";
import type { IncomingHttpHeaders } from "node:http";
import type { Params } from "../../server-kit/router.js";
import type { ApiVersion } from "./render.js";
import type { Store, UserRecord } from "./store.js";

/** What a route handler gets: the store, the parsed request and who is calling. */
export interface RequestContext {
  readonly store: Store;
  readonly params: Params;
  readonly query: URLSearchParams;
  /** The parsed JSON body (undefined when none was sent). */
  readonly body: unknown;
  /** The size of the raw body in bytes. */
  readonly bodySize: number;
  readonly headers: IncomingHttpHeaders;
  readonly user: UserRecord;
  readonly access: TokenAccess;
  readonly apiVersion: ApiVersion;
  /** The request's absolute URL. */
  readonly url: URL;
}

/** A handler's answer; bodies are sent as JSON, 204 without a body. */
export interface Reply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export type RouteHandler = (ctx: RequestContext) => Reply;

/** One API route and what the request pipeline must do around it. */
export interface RouteDef {
  readonly method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  readonly pattern: string;
  readonly handler: RouteHandler;
  /** Content creation: counts against the secondary 80/min, 500/h limit. */
  readonly creates?: boolean;
  /** Needs admin rights (the import API). */
  readonly admin?: boolean;
  /** Whether answers carry an ETag and honour If-None-Match (GitHub's search does not). */
  readonly conditional?: boolean;
  /** Primary bucket; `none` for `/rate_limit`, which costs nothing. */
  readonly resource?: "core" | "search" | "none";
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): Reply =>
  headers === undefined ? { status, body } : { status, body, headers };

export const noContent = (): Reply => ({ status: 204 });
