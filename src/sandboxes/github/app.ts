import { scopeHeaders, type TokenAccess, type TokenScopes } from "./access.js";
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { applyFaults, sendTruncated } from "../../server-kit/apply-faults.js";
import type { FaultInjector } from "../../server-kit/faults.js";
import { BodyTooLargeError, readBody } from "../../server-kit/http.js";
import type { Router } from "../../server-kit/router.js";
import type { StatsRecorder } from "../../server-kit/stats.js";
import { tokensEqual } from "../../server-kit/tokens.js";
import type { Reply, RequestContext, RouteDef } from "./context.js";
import {
  badCredentials,
  errorBody,
  GithubError,
  notAccessibleByToken,
  notFound,
  requiresAuthentication,
} from "./errors.js";
import { beforeWrite } from "./consistency.js";
import type { Limits } from "./limits.js";
import { GRAPHQL_PATHS } from "./graphql/endpoint.js";
import type { ReadCache } from "./read-cache.js";
import { renderLabel, renderMilestone, type ApiVersion } from "./render.js";
import { findUser, type Store, type UserRecord } from "./store.js";
import type { WebhookSender } from "./webhooks.js";

/** Everything the request pipeline needs; built once per sandbox by index.ts. */
export interface App {
  readonly store: Store;
  readonly router: Router<RouteDef>;
  readonly stats: StatsRecorder;
  readonly faults: FaultInjector;
  readonly limits: Limits;
  readonly cache: ReadCache;
  readonly tokens: readonly {
    readonly token: string;
    readonly login: string;
    readonly access: TokenAccess;
    readonly scopes: TokenScopes;
  }[];
  /** Delivers a webhook for every successful write (`--webhook URL`). */
  readonly webhooks?: WebhookSender | undefined;
  /** `POST /graphql` and `/api/graphql` (Projects v2). */
  readonly graphql?: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  /** Answers `/_sandbox/*`; returns false when the path is not one of them. */
  readonly control: (req: IncomingMessage, res: ServerResponse, path: string) => boolean;
}

const MAX_BODY_BYTES = 25 * 1024 * 1024;

const BASE_HEADERS: Readonly<Record<string, string>> = {
  "cache-control": "private, max-age=60, s-maxage=60",
  vary: "Accept, Authorization, Cookie, X-GitHub-OTP",
  "x-github-media-type": "github.v3; format=json",
  "x-content-type-options": "nosniff",
  "access-control-allow-origin": "*",
  "access-control-expose-headers":
    "ETag, Link, Location, Retry-After, X-GitHub-OTP, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Used, X-RateLimit-Resource, X-RateLimit-Reset, X-OAuth-Scopes, X-Accepted-OAuth-Scopes, X-Poll-Interval, X-GitHub-Media-Type, X-GitHub-SSO, X-GitHub-Request-Id, Deprecation, Sunset",
};

let requestCounter = 0;

/** One request through the pipeline: stats, faults, auth, version, limits, route, ETag. */
export async function handleRequest(
  app: App,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = (req.method ?? "GET").toUpperCase();
  const url = new URL(req.url ?? "/", app.store.origin);
  if (app.control(req, res, url.pathname)) return;
  if (method === "POST" && app.graphql !== undefined && GRAPHQL_PATHS.includes(url.pathname)) {
    await app.graphql(req, res);
    return;
  }
  const match = app.router.match(method, url.pathname);
  app.stats.request(method, match.kind === "found" ? match.route : "(unmatched)");
  const writeError = (
    r: ServerResponse,
    status: number,
    message: string,
    headers?: Record<string, string>,
  ): void => {
    if (status === 403 || status === 429) app.stats.rateLimited();
    send(app, r, { status, body: errorBody(status, message), headers: headers ?? {} }, false);
  };
  const fault = await applyFaults({
    req,
    res,
    path: url.pathname,
    faults: app.faults,
    stats: app.stats,
    writeError,
  });
  if (fault.handled) return;
  let reply: Reply;
  try {
    reply = await answer(app, req, method, url, match);
  } catch (error) {
    if (!(error instanceof GithubError)) throw error;
    reply = { status: error.status, body: error.body(), headers: error.headers };
  }
  send(app, res, reply, fault.truncate);
}

type Match = ReturnType<Router<RouteDef>["match"]>;
interface Caller {
  user: UserRecord;
  access: TokenAccess;
  scopes: TokenScopes;
}

/** Errors after authentication carry the caller's `x-ratelimit-*` headers, as GitHub's do. */
async function answer(
  app: App,
  req: IncomingMessage,
  method: string,
  url: URL,
  match: Match,
): Promise<Reply> {
  const caller = authenticate(app, req, match);
  try {
    return await serve(app, req, method, url, match, caller);
  } catch (error) {
    if (!(error instanceof GithubError)) throw error;
    const resource = match.kind === "found" ? (match.handler.resource ?? "core") : "core";
    throw error.withHeaders({
      ...app.limits.headers(resource, caller.user),
      ...scopeHeaders(caller.scopes),
    });
  }
}

/** Checks version, route, repository and rights; builds the handler's context. */
async function prepare(
  app: App,
  req: IncomingMessage,
  method: string,
  url: URL,
  match: Match,
  caller: Caller,
): Promise<{ route: RouteDef; ctx: RequestContext }> {
  const apiVersion = checkVersion(req.headers["x-github-api-version"]);
  if (match.kind !== "found") throw notFound();
  const route = match.handler;
  const { owner, repo } = match.params;
  if (owner !== undefined && !sameRepo(app.store, owner, repo)) throw notFound();
  if (method !== "GET" && caller.access === "read") throw notAccessibleByToken();
  if (route.admin === true && caller.access !== "admin") throw notFound();
  const raw = method === "GET" ? Buffer.alloc(0) : await readRequestBody(req);
  const ctx: RequestContext = {
    store: app.store,
    params: match.params,
    query: url.searchParams,
    body: parseJson(raw),
    bodySize: raw.length,
    headers: req.headers,
    user: caller.user,
    access: caller.access,
    apiVersion,
    url,
  };
  return { route, ctx };
}

/**
 * Reads are answered first and charged only when not revalidated (304s are free); writes are
 * charged (primary, then content creation) before they change anything.
 */
async function serve(
  app: App,
  req: IncomingMessage,
  method: string,
  url: URL,
  match: Match,
  caller: Caller,
): Promise<Reply> {
  const { route, ctx } = await prepare(app, req, method, url, match, caller);
  const resource = route.resource ?? "core";
  const common = (): Record<string, string> => ({
    "x-github-api-version-selected": ctx.apiVersion,
    ...app.limits.headers(resource, caller.user),
    ...scopeHeaders(caller.scopes),
  });
  if (method === "GET") {
    const reply = app.cache.answer(route, ctx);
    const conditional = reply.status === 200 && route.conditional !== false;
    const etag = conditional ? etagOf(reply.body) : undefined;
    if (etag !== undefined && notModified(req, etag, reply.headers?.["last-modified"])) {
      app.stats.notModified();
      return { status: 304, headers: { etag, ...common() } };
    }
    app.limits.charge(resource, caller.user, false);
    return withHeaders(reply, { ...(etag === undefined ? {} : { etag }), ...common() });
  }
  app.limits.charge(resource, caller.user, route.creates === true);
  app.store.version++;
  app.store.actor = caller.user.login;
  const target = match.kind === "found" ? Number(match.params.number) : Number.NaN;
  const addressed = app.store.issues.find((i) => i.number === target);
  if (addressed !== undefined) beforeWrite(app.store, addressed);
  const before = addressed === undefined ? undefined : { ...addressed };
  const commentId = match.kind === "found" ? Number(match.params.id) : Number.NaN;
  const found = route.pattern.includes("/comments/")
    ? app.store.comments.find((c) => c.id === commentId)
    : undefined;
  const commentBefore = found === undefined ? undefined : { ...found };
  const objectBefore =
    method === "DELETE" && match.kind === "found"
      ? deletedObject(app.store, route.pattern, match.params)
      : undefined;
  const reply = route.handler(ctx);
  if (reply.status < 300) app.stats.write();
  if (reply.status < 300 && match.kind === "found")
    app.webhooks?.afterWrite({
      method,
      route: match.route,
      params: match.params,
      requestBody: ctx.body,
      reply,
      before,
      commentBefore,
      objectBefore,
      sender: caller.user,
    });
  const etag = reply.status < 300 && reply.body !== undefined ? etagOf(reply.body) : undefined;
  return withHeaders(reply, { ...(etag === undefined ? {} : { etag }), ...common() });
}

function withHeaders(reply: Reply, headers: Record<string, string>): Reply {
  return { ...reply, headers: { ...headers, ...reply.headers } };
}

/** Routes of the repository (by owner/name or by id): private, so hidden from anonymous callers. */
function repoScoped(match: Match): boolean {
  return (
    match.kind === "found" && (match.params.owner !== undefined || match.params.id !== undefined)
  );
}

function authenticate(app: App, req: IncomingMessage, match: Match): Caller {
  if (typeof req.headers["user-agent"] !== "string" || req.headers["user-agent"] === "") {
    throw new GithubError(
      403,
      "Request forbidden by administrative rules. Please make sure your request has a User-Agent header (https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required). Check https://developer.github.com for other possible causes.",
    );
  }
  const header = req.headers.authorization;
  // The repository is private: without credentials GitHub answers 404, not 401, for it.
  if (header === undefined) throw repoScoped(match) ? notFound() : requiresAuthentication();
  const m = /^(?:token|bearer)\s+(\S+)\s*$/i.exec(header);
  const presented = m?.[1];
  for (const t of app.tokens) {
    if (tokensEqual(presented, t.token)) {
      const user = findUser(app.store, t.login);
      if (user) return { user, access: t.access, scopes: t.scopes };
    }
  }
  throw badCredentials();
}

/** Versions GitHub does not serve (any other date, any other string) → 400, as GitHub answers. */
function checkVersion(header: string | string[] | undefined): ApiVersion {
  if (header === undefined) return "2022-11-28";
  const v = Array.isArray(header) ? (header[0] ?? "") : header;
  if (v === "2022-11-28" || v === "2026-03-10") return v;
  throw new GithubError(400, `API version ${v} is not supported.`, {
    documentationUrl: "https://docs.github.com/rest/overview/api-versions",
  });
}

function sameRepo(store: Store, owner: string, repo: string | undefined): boolean {
  return (
    owner.toLowerCase() === store.owner.login.toLowerCase() &&
    repo?.toLowerCase() === store.repoName.toLowerCase()
  );
}

async function readRequestBody(req: IncomingMessage): Promise<Buffer> {
  try {
    return await readBody(req, MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new GithubError(413, "Payload too big");
    throw error;
  }
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    throw new GithubError(400, "Problems parsing JSON");
  }
}

/** Serialised bodies, so that the ETag and the response share one JSON.stringify. */
const serialised = new WeakMap<object, string>();

function serialise(body: unknown): string {
  if (typeof body !== "object" || body === null) return JSON.stringify(body);
  let text = serialised.get(body);
  if (text === undefined) {
    text = JSON.stringify(body);
    serialised.set(body, text);
  }
  return text;
}

function etagOf(body: unknown): string {
  // GitHub's ETags are 32 hex digits; md5 is plenty for change detection.
  return `W/"${createHash("md5").update(serialise(body)).digest("hex")}"`;
}

/** `If-None-Match` decides when present; otherwise `If-Modified-Since` against `last-modified`. */
function notModified(
  req: IncomingMessage,
  etag: string,
  lastModified: string | undefined,
): boolean {
  const inm = req.headers["if-none-match"];
  if (inm !== undefined) return matchesEtag(inm, etag);
  const ims = req.headers["if-modified-since"];
  if (ims === undefined || lastModified === undefined) return false;
  const since = Date.parse(ims);
  return !Number.isNaN(since) && Date.parse(lastModified) <= since;
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const bare = (t: string): string => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => t.trim() === "*" || bare(t) === bare(etag));
}

function send(app: App, res: ServerResponse, reply: Reply, truncate: boolean): void {
  app.stats.status(reply.status);
  const headers: Record<string, string> = {
    ...BASE_HEADERS,
    // GitHub's clock, as it stamps `updated_at` (a sandbox clock may be set or scaled).
    date: new Date(app.store.clock.now()).toUTCString(),
    "x-github-request-id": `SBX:${(++requestCounter).toString(16).toUpperCase()}`,
    "x-github-api-version-selected": "2022-11-28",
    ...reply.headers,
  };
  if (reply.status === 204 || reply.status === 304 || reply.body === undefined) {
    res.writeHead(reply.status, headers).end();
    return;
  }
  const text = serialise(reply.body);
  headers["content-type"] = "application/json; charset=utf-8";
  if (truncate) {
    sendTruncated(res, reply.status, headers, text);
    return;
  }
  headers["content-length"] = String(Buffer.byteLength(text));
  res.writeHead(reply.status, headers).end(text);
}

/** The rendered milestone or label a DELETE removes (its webhook carries the whole object). */
function deletedObject(
  store: Store,
  pattern: string,
  params: Readonly<Record<string, string>>,
): unknown {
  if (pattern === "/repos/:owner/:repo/milestones/:number") {
    const m = store.milestones.find((x) => x.number === Number(params.number));
    return m === undefined ? undefined : renderMilestone(store, m);
  }
  if (pattern === "/repos/:owner/:repo/labels/:name") {
    const name = (params.name ?? "").toLowerCase();
    const l = store.labels.find((x) => x.name.toLowerCase() === name);
    return l === undefined ? undefined : renderLabel(store, l);
  }
  return undefined;
}
