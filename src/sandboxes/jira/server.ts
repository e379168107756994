import type { IncomingMessage, ServerResponse } from "node:http";
import { applyFaults, sendTruncated, type ErrorWriter } from "../../server-kit/apply-faults.js";
import type { FaultInjector } from "../../server-kit/faults.js";
import { BodyTooLargeError, readBody } from "../../server-kit/http.js";
import type { Router } from "../../server-kit/router.js";
import type { StatsRecorder } from "../../server-kit/stats.js";
import { tokensEqual } from "../../server-kit/tokens.js";
import { JiraHttpError, type Reply, type RouteDef, type SandboxLimits } from "./context.js";
import { dcAnonymousReply, dcAuthenticate } from "./dc-auth.js";
import type { RateLimiter } from "./rate-limit.js";
import type { JiraStore } from "./store.js";
import type { JiraWebhookSender } from "./webhooks.js";

const JSON_TYPE = "application/json;charset=UTF-8";
const BODY_LIMIT = 10 * 1024 * 1024;

/** Everything the request pipeline needs, passed in (no module state). */
interface ServerDeps {
  readonly store: JiraStore;
  readonly router: Router<RouteDef>;
  readonly faults: FaultInjector;
  readonly stats: StatsRecorder;
  readonly limiter: RateLimiter;
  readonly email: string;
  readonly token: string;
  readonly timeScale: number;
  /** The rate limiter's clock: real time sped up by `timeScale`. */
  readonly rateClock: () => number;
  readonly indexingLagMs: number;
  /** Issue timestamps' and the search index's time source (epoch ms). */
  readonly clock: () => number;
  readonly limits: SandboxLimits;
  readonly origin: () => string;
  /** Handles `/_sandbox/*` (stats, reset); returns false for other paths. */
  readonly sandboxRoute: (method: string, path: string, res: ServerResponse) => boolean;
  /** Delivers webhooks for what each successful write changed (`--webhook URL`). */
  readonly webhooks?: JiraWebhookSender | undefined;
  /** Cloud: Basic `email:token`. Data Center: a PAT as Bearer, Seraph's anonymous fallback. */
  readonly deployment: "cloud" | "datacenter";
}

function send(res: ServerResponse, reply: Reply, truncate = false): void {
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.status === 204 || reply.body === undefined) {
    res.writeHead(reply.status, headers).end();
    return;
  }
  const text = JSON.stringify(reply.body);
  headers["content-type"] = JSON_TYPE;
  if (truncate) {
    sendTruncated(res, reply.status, headers, text);
    return;
  }
  res
    .writeHead(reply.status, { ...headers, "content-length": String(Buffer.byteLength(text)) })
    .end(text);
}

function errorReply(status: number, messages: readonly string[], errors = {}, headers = {}): Reply {
  return { status, body: { errorMessages: messages, errors }, headers };
}

/** Basic `email:token`, the token compared in constant time. */
function authenticated(req: IncomingMessage, deps: ServerDeps): boolean {
  const header = req.headers.authorization ?? "";
  if (!header.startsWith("Basic ")) return false;
  const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const email = colon < 0 ? "" : decoded.slice(0, colon);
  const secret = colon < 0 ? undefined : decoded.slice(colon + 1);
  return tokensEqual(secret, deps.token) && email.toLowerCase() === deps.email.toLowerCase();
}

/** Builds the node:http handler of the Jira sandbox. */
export function createJiraHandler(deps: ServerDeps) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = (req.method ?? "GET").toUpperCase();
    const url = new URL(req.url ?? "/", "http://sandbox.invalid");
    if (deps.sandboxRoute(method, url.pathname, res)) return;
    const match = deps.router.match(method, url.pathname);
    deps.stats.request(method, match.kind === "found" ? match.route : "(unmatched)");
    const reply = await answer(req, res, url, deps);
    if (reply === undefined) return;
    deps.stats.status(reply.reply.status);
    if (reply.reply.status === 429) deps.stats.rateLimited();
    if (reply.write && reply.reply.status < 300) deps.stats.write();
    send(res, reply.reply, reply.truncate);
  };
}

type Answer = { reply: Reply; truncate: boolean; write: boolean } | undefined;

/** Auth, then faults, then the route (404/405), the rate limits and the handler. */
async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  deps: ServerDeps,
): Promise<Answer> {
  // A refused PAT on a public endpoint is served as anonymous, marked only by this header.
  let marked: Record<string, string> = {};
  if (deps.deployment === "datacenter") {
    const auth = dcAuthenticate(req, deps.token);
    if (auth === "failed") marked = { "x-seraph-loginreason": "AUTHENTICATED_FAILED" };
    const anonymous =
      auth === "ok" ? "serve" : dcAnonymousReply(auth, req.method ?? "GET", url.pathname);
    if (anonymous !== "serve") {
      req.resume();
      return { reply: anonymous, truncate: false, write: false };
    }
  } else if (!authenticated(req, deps)) {
    req.resume();
    const message = "Client must be authenticated to access this resource.";
    const headers = { "x-seraph-loginreason": "AUTHENTICATED_FAILED" };
    return { reply: errorReply(401, [message], {}, headers), truncate: false, write: false };
  }
  const writeError: ErrorWriter = (r, status, message, headers = {}) => {
    deps.stats.status(status);
    const reason = status === 429 && headers["retry-after"] !== undefined;
    const extra = reason ? { "ratelimit-reason": "jira-burst-based" } : {};
    send(r, errorReply(status, [message], {}, { ...headers, ...extra }));
  };
  const { faults, stats } = deps;
  const fault = await applyFaults({ req, res, path: url.pathname, faults, stats, writeError });
  if (fault.handled) return undefined;
  const answered = await route(req, url, deps);
  const reply = { ...answered.reply, headers: { ...answered.reply.headers, ...marked } };
  return { ...answered, reply, truncate: fault.truncate && answered.reply.status !== 405 };
}

async function route(
  req: IncomingMessage,
  url: URL,
  deps: ServerDeps,
): Promise<{ reply: Reply; write: boolean }> {
  const method = (req.method ?? "GET").toUpperCase();
  const match = deps.router.match(method, url.pathname);
  if (match.kind !== "found") {
    req.resume();
    const reply: Reply =
      match.kind === "not-found"
        ? errorReply(404, [`null for uri: ${deps.origin()}${url.pathname}`])
        : { status: 405, headers: { allow: match.allowed.join(", ") } };
    return { reply, write: false };
  }
  const write = match.handler.write ?? method !== "GET";
  const limited = rateLimit(deps, method, match.route, write, match.params.issueIdOrKey);
  if ("denied" in limited) {
    req.resume();
    return { reply: limited.denied, write };
  }
  const before = write ? deps.webhooks?.beforeWrite() : undefined;
  const reply = await handle(req, url, deps, match.handler, match.params);
  if (before !== undefined && reply.status < 300)
    deps.webhooks?.afterWrite(before, deps.origin(), deps.store.site.admin);
  return { reply: { ...reply, headers: { ...limited.headers, ...reply.headers } }, write };
}

function rateLimit(
  deps: ServerDeps,
  method: string,
  endpoint: string,
  write: boolean,
  issueRef: string | undefined,
): { denied: Reply } | { headers: Readonly<Record<string, string>> } {
  const issueId = issueRef === undefined ? undefined : deps.store.findIssue(issueRef)?.id;
  const decision = deps.limiter.check(
    { method, endpoint, write, issueId: issueId === undefined ? undefined : String(issueId) },
    deps.rateClock(),
  );
  if (decision.allowed) return { headers: decision.headers };
  const realMs = decision.retryAfterMs / deps.timeScale;
  if (decision.headers !== undefined) {
    // Data Center: whole seconds to wait, with its own X-RateLimit-* set.
    const seconds = String(Math.max(1, Math.ceil(realMs / 1000)));
    const headers = { ...decision.headers, "retry-after": seconds };
    return { denied: errorReply(429, ["Rate limit exceeded."], {}, headers) };
  }
  // Jira sends whole seconds; under a time scale the wait is sent as a decimal so clients stay fast.
  const retryAfter =
    deps.timeScale === 1
      ? String(Math.max(1, Math.ceil(realMs / 1000)))
      : (Math.max(1, realMs) / 1000).toFixed(3);
  const denied = errorReply(
    429,
    ["Rate limit exceeded."],
    {},
    {
      "retry-after": retryAfter,
      "x-ratelimit-reset": new Date(Date.now() + realMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
      "ratelimit-reason": decision.reason,
      "x-ratelimit-limit": String(decision.limit),
      "x-ratelimit-remaining": "0",
    },
  );
  return { denied };
}

async function handle(
  req: IncomingMessage,
  url: URL,
  deps: ServerDeps,
  route: RouteDef,
  params: Readonly<Record<string, string>>,
): Promise<Reply> {
  try {
    const body = await readJson(req);
    return route.handler({
      store: deps.store,
      params,
      query: url.searchParams,
      body,
      origin: deps.origin(),
      user: deps.store.site.admin,
      indexingLagMs: deps.indexingLagMs,
      clock: deps.clock,
      limits: deps.limits,
    });
  } catch (error) {
    if (error instanceof JiraHttpError)
      return errorReply(error.status, error.errorMessages, error.errors);
    if (error instanceof BodyTooLargeError)
      return errorReply(413, [`The request body is larger than ${error.limit} bytes.`]);
    throw error;
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const method = (req.method ?? "GET").toUpperCase();
  if (method === "GET" || method === "DELETE") {
    req.resume();
    return undefined;
  }
  const raw = (await readBody(req, BODY_LIMIT)).toString("utf8");
  if (raw.trim() === "") return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    throw new JiraHttpError(400, [
      `Unexpected character in the JSON request body: ${(error as Error).message}`,
    ]);
  }
}
