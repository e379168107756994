import type { IncomingMessage, ServerResponse } from "node:http";
import { applyFaults, sendTruncated } from "../server-kit/apply-faults.js";
import type { FaultInjector } from "../server-kit/faults.js";
import { BodyTooLargeError, readBody, type Handler } from "../server-kit/http.js";
import { createRouter, type Router } from "../server-kit/router.js";
import type { StatsRecorder } from "../server-kit/stats.js";
import { tokensEqual } from "../server-kit/tokens.js";
import { ApiError } from "./api-error.js";
import type { ApiVersion } from "./model.js";
import { documentOf, errorXml } from "./render.js";
import type { Reply, RouteDef, RouteHandler } from "./route-types.js";
import { READ_ROUTES } from "./routes-read.js";
import { EXTRA_ROUTES } from "./routes-extras.js";
import { STORY_ROUTES } from "./routes-stories.js";
import { TASK_ROUTES } from "./routes-tasks.js";
import type { ReferenceStore } from "./store.js";
import { parseXml, XmlSyntaxError, type XmlElement } from "./xml-read.js";

/** The live state one request handler works on. `store` is replaced by a reset. */
export interface ServerState {
  store: ReferenceStore;
  baseUrl: string;
  readonly version: ApiVersion;
  /** Story and task listings carry complete elements (a server variant; off by default). */
  readonly completeLists: boolean;
  readonly prefix: string;
  readonly token: string;
  readonly apiDisabled: boolean;
  readonly maxBodyBytes: number;
  readonly today: () => Date;
  readonly faults: FaultInjector;
  readonly stats: StatsRecorder;
  reset(): void;
}

const XML_TYPE = "application/xml;charset=UTF-8";
const ACCEPTED_TYPE = /^(application|text)\/xml\s*(;.*)?$/i;
const ALL_ROUTES: readonly RouteDef[] = [
  ...READ_ROUTES,
  ...STORY_ROUTES,
  ...TASK_ROUTES,
  ...EXTRA_ROUTES,
];
const decoder = new TextDecoder("utf-8", { fatal: true });

function buildRouter(version: ApiVersion): Router<RouteHandler> {
  const router = createRouter<RouteHandler>();
  for (const r of ALL_ROUTES) {
    if (r.since === "2.6" && version !== "2.6") continue;
    router.add(r.method, r.pattern, r.handler);
  }
  return router;
}

function send(state: ServerState, res: ServerResponse, reply: Reply, truncate = false): void {
  const headers: Record<string, string> = { ...reply.headers };
  state.stats.status(reply.status);
  if (reply.status === 429) state.stats.rateLimited();
  if (reply.body === undefined) {
    res.writeHead(reply.status, { ...headers, "content-length": "0" }).end();
    return;
  }
  const body = documentOf(state.version, reply.body);
  headers["content-type"] = XML_TYPE;
  if (truncate) {
    sendTruncated(res, reply.status, headers, body);
    return;
  }
  const bytes = Buffer.from(body, "utf8");
  headers["content-length"] = String(bytes.length);
  res.writeHead(reply.status, headers).end(bytes);
}

function errorReply(status: number, message: string, headers?: Record<string, string>): Reply {
  return { status, body: errorXml(status, message), headers };
}

export function createRequestHandler(state: ServerState): Handler {
  const router = buildRouter(state.version);
  return async (req, res) => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    const query = new URLSearchParams(q < 0 ? "" : url.slice(q + 1));
    if (path.startsWith("/_sandbox/")) {
      sandbox(state, req, res, path);
      return;
    }
    const method = req.method ?? "GET";
    const inApi = path.startsWith(`${state.prefix}/`);
    const sub = inApi ? path.slice(state.prefix.length) : path;
    const match = router.match(method, sub);
    state.stats.request(method, match.kind === "found" ? match.route : "(unmatched)");
    const fault = await applyFaults({
      req,
      res,
      path: sub,
      faults: state.faults,
      stats: state.stats,
      writeError: (r, status, message, headers) => {
        send(state, r, errorReply(status, message, headers));
      },
    });
    if (fault.handled) return;
    const reply = await answer(state, req, { method, path, inApi, match, query });
    if (reply.write === true && reply.status < 300) state.stats.write();
    send(state, res, reply, fault.truncate);
  };
}

async function answer(
  state: ServerState,
  req: IncomingMessage,
  r: {
    method: string;
    path: string;
    inApi: boolean;
    match: ReturnType<Router<RouteHandler>["match"]>;
    query: URLSearchParams;
  },
): Promise<Reply> {
  if (!r.inApi) return errorReply(404, `No resource at ${r.path}`);
  if (state.apiDisabled) {
    return errorReply(403, "The API is disabled; enable it in Settings > API Settings");
  }
  const header = req.headers["x-tinypm-token"];
  const presented = typeof header === "string" ? header : (r.query.get("token") ?? undefined);
  if (!tokensEqual(presented, state.token)) return errorReply(401, "Missing or invalid API token");
  const { match } = r;
  if (match.kind === "not-found") return errorReply(404, `No resource at ${r.method} ${r.path}`);
  if (match.kind === "method-not-allowed") {
    return errorReply(405, `Method ${r.method} is not allowed on ${r.path}`, {
      allow: match.allowed.join(", "),
    });
  }
  try {
    const body = r.method === "POST" || r.method === "PUT" ? await readXml(state, req) : undefined;
    return match.handler({
      store: state.store,
      version: state.version,
      completeLists: state.completeLists,
      params: match.params,
      query: r.query,
      body,
      baseUrl: state.baseUrl,
      today: state.today,
    });
  } catch (error) {
    if (error instanceof ApiError)
      return errorReply(error.status, error.message, { ...error.headers });
    if (error instanceof XmlSyntaxError) return errorReply(400, error.message);
    if (error instanceof BodyTooLargeError) {
      return errorReply(413, `Request body is larger than ${error.limit} bytes`);
    }
    throw error;
  }
}

async function readXml(state: ServerState, req: IncomingMessage): Promise<XmlElement> {
  const type = req.headers["content-type"] ?? "";
  if (!ACCEPTED_TYPE.test(type)) {
    req.resume();
    throw new ApiError(
      415,
      `Unsupported media type ${JSON.stringify(type)}; send application/xml or text/xml`,
    );
  }
  const bytes = await readBody(req, state.maxBodyBytes);
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new ApiError(400, "Malformed XML: the body is not valid UTF-8");
  }
  return parseXml(text);
}

function sandbox(
  state: ServerState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): void {
  req.resume();
  const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
    const body = JSON.stringify(value);
    res
      .writeHead(status, {
        ...headers,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
      })
      .end(body);
  };
  const expected =
    path === "/_sandbox/stats" ? "GET" : path === "/_sandbox/reset" ? "POST" : undefined;
  if (expected === undefined) {
    json(404, { error: `No resource at ${path}` });
  } else if (req.method !== expected) {
    json(
      405,
      { error: `Method ${req.method ?? ""} is not allowed on ${path}` },
      { allow: expected },
    );
  } else if (expected === "GET") {
    json(200, state.stats.snapshot());
  } else {
    state.reset();
    json(200, { reset: true });
  }
}
