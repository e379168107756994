import type { Logger } from "../../core/logger.js";
import { Octokit } from "@octokit/rest";
import {
  InterruptedError,
  PayloadInvalidError,
  RemoteUnavailableError,
} from "../../core/errors.js";
import { ungated, withBothSignals, type RequestGate } from "../../core/request-gate.js";
import { linkedSignals } from "../../core/abort-watch.js";
import { createServerClock } from "../../core/server-clock.js";
import { asHttpError, toSyncError } from "./errors.js";
import { graphqlError } from "./project-errors.js";
import { nodeHttpFetch } from "./node-http-fetch.js";
import { readRateLimit, type Headers, type RateLimitSnapshot } from "./rate-limit.js";

/** What a conditional GET answered 304 is, as the gate sees it (its status counts it apart). */
const NOT_MODIFIED = { status: 304 } as const;

function notModified(r: GithubResponse | typeof NOT_MODIFIED): r is typeof NOT_MODIFIED {
  return r === NOT_MODIFIED;
}

/** The REST API version every request pins. */
const API_VERSION = "2022-11-28";
/** The preview media type the issue import API requires. */
export const IMPORT_ACCEPT = "application/vnd.github.golden-comet-preview+json";

export interface GithubRequest {
  readonly method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** A route template (`/repos/{owner}/{repo}/issues`) or an absolute URL from a `link` header. */
  readonly url: string;
  readonly params?: Readonly<Record<string, unknown>> | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** For error messages: `issues.create`, `GET /repos/{owner}/{repo}/issues`. */
  readonly operation: string;
  readonly id?: string | undefined;
  readonly ifNoneMatch?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

export interface GithubResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly data: unknown;
}

interface GithubClientOptions {
  readonly baseUrl: string;
  readonly token: string;
  readonly owner: string;
  readonly repo: string;
  /** Every request goes through it (limits, retries, waits). @default ungated */
  readonly gate?: RequestGate | undefined;
  readonly tokenEnv?: string | undefined;
  readonly userAgent?: string | undefined;
  readonly now?: (() => number) | undefined;
  /** Real milliseconds before a request is abandoned (GitHub kills requests after 10 s). Default 30,000. */
  readonly timeoutMs?: number | undefined;
  readonly logger?: Logger | undefined;
  /** The transport (default: `nodeHttpFetch`); a seam for proxies and tests. */
  readonly fetch?: typeof fetch | undefined;
}

/** The part of a pino logger the adapter uses. */
/** One GraphQL request (Projects v2), through the same gate as REST. */
export interface GithubGraphqlRequest {
  readonly query: string;
  readonly variables?: Readonly<Record<string, unknown>> | undefined;
  /** For counts and errors: `projectV2.items`, `projectV2.setValues`. */
  readonly operation: string;
  /** A mutation (counted as a write). */
  readonly write: boolean;
  /** Safe to send again after an ambiguous failure (reads; value updates; idempotent adds). */
  readonly idempotent: boolean;
  readonly signal?: AbortSignal | undefined;
}

/** A GET and the write built from its answer, sent as one write of the gate. */
export interface GithubReadThenWrite {
  readonly read: GithubRequest;
  /** The write's method and operation (`PATCH`, `issues.update`), as events and counts name it. */
  readonly method: GithubRequest["method"];
  readonly operation: string;
  /**
   * The write to send, built from the read's answer with no await in between; `undefined` sends
   * none. Throwing (a field a person changed) sends nothing.
   */
  readonly build: (read: GithubResponse) => GithubRequest | undefined;
  readonly signal?: AbortSignal | undefined;
}

export interface GithubClient {
  /** One request; `"not-modified"` when a conditional GET was answered 304. */
  request(req: GithubRequest): Promise<GithubResponse | "not-modified">;
  /**
   * GET then a write built from it as ONE write of the request gate: the read is made once the
   * write's turn has come (limits, requests in flight, the shared budget) and the write follows
   * at once. GitHub's PATCH takes no If-Match; this leaves a person's edit only the write's own
   * transit to be overwritten in. A retry of the write (a timeout, a 5xx) reads again.
   */
  readThenWrite(
    spec: GithubReadThenWrite,
  ): Promise<{ read: GithubResponse; written: GithubResponse | undefined }>;
  /** One GraphQL request; GraphQL errors (HTTP 200) mapped to core's errors. */
  graphql<T>(req: GithubGraphqlRequest): Promise<T>;
  rateLimit(): RateLimitSnapshot;
  /** Now on GitHub's clock, as its answers' `Date` headers tell it (core/server-clock.ts). */
  serverNow(): Date | undefined;
}

/**
 * The only place that touches Octokit: pins the API version, sends every request through the
 * gate (which counts them), maps errors and rate-limit headers to core's errors.
 */
export function createGithubClient(opts: GithubClientOptions): GithubClient {
  const now = opts.now ?? Date.now;
  const gate = opts.gate ?? ungated;
  const octokit = new Octokit({
    baseUrl: opts.baseUrl.replace(/\/+$/, ""),
    auth: opts.token,
    userAgent: opts.userAgent ?? "tinypm-sync",
    request: { fetch: opts.fetch ?? nodeHttpFetch },
    log: {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    },
  });
  const send = octokit.request as unknown as (
    options: Record<string, unknown>,
  ) => Promise<{ status: number; headers: unknown; data: unknown }>;
  let snapshot: RateLimitSnapshot = {};
  const serverClock = createServerClock(now);
  const remember = (headers: Headers | undefined): void => {
    if (headers?.["x-ratelimit-remaining"] !== undefined) snapshot = readRateLimit(headers);
    serverClock.observe(headers?.date);
  };
  return {
    async request(req) {
      const write = req.method !== "GET";
      const res = await gate.request({
        system: "github",
        kind: write ? "write" : req.url.startsWith("/search/") ? "search" : "read",
        name: `${req.method} ${req.url}`,
        operation: req.operation,
        // A POST creates (a repeat would duplicate); GET, PATCH of fields, PUT and DELETE repeat safely.
        idempotent: req.method !== "POST",
        // A 304 goes through the gate as one (its count of conditional reads).
        send: async (signal) =>
          (await withBothSignals(req.signal, signal, (both) =>
            attempt({ ...req, signal: both }),
          )) ?? NOT_MODIFIED,
      });
      return notModified(res) ? "not-modified" : res;
    },
    readThenWrite(spec) {
      let wrote = false;
      return gate.request({
        system: "github",
        kind: "write",
        name: `${spec.method} ${spec.read.url}`,
        operation: spec.operation,
        // Each attempt reads again and builds its write from what it read.
        idempotent: true,
        readFirst: { operation: spec.read.operation, wrote: () => wrote },
        send: (signal) =>
          withBothSignals(spec.signal, signal, async (both) => {
            wrote = false;
            const read = must(await attempt({ ...spec.read, signal: both }), spec.read);
            const write = spec.build(read);
            if (write === undefined) return { status: read.status, read, written: undefined };
            wrote = true;
            const written = must(await attempt({ ...write, signal: both }), write);
            return { status: written.status, read, written };
          }),
      });
    },
    rateLimit: () => snapshot,
    serverNow: () => serverClock.now(),
    graphql: <T>(req: GithubGraphqlRequest): Promise<T> =>
      gate.request({
        system: "github",
        kind: req.write ? "write" : "read",
        name: `POST /graphql ${req.operation}`,
        operation: req.operation,
        idempotent: req.idempotent,
        send: (signal) =>
          withBothSignals(req.signal, signal, (both) => graphqlAttempt<T>(req, both)),
      }),
  };

  async function graphqlAttempt<T>(req: GithubGraphqlRequest, signal: AbortSignal): Promise<T> {
    if (signal.aborted) throw interruptedOp(req.operation);
    const timeout = AbortSignal.timeout(opts.timeoutMs ?? 30_000);
    const started = now();
    const linked = linkedSignals(signal, timeout);
    try {
      const data = await octokit.graphql<T>(req.query, {
        ...req.variables,
        request: { signal: linked.signal },
      });
      opts.logger?.debug(
        {
          method: "POST",
          path: "/graphql",
          status: 200,
          ms: now() - started,
          operation: req.operation,
        },
        "http",
      );
      return data;
    } catch (err) {
      const e = asHttpError(err);
      remember(e.response?.headers);
      opts.logger?.debug(
        {
          method: "POST",
          path: "/graphql",
          status: e.status ?? "error",
          ms: now() - started,
          operation: req.operation,
        },
        "http",
      );
      if (isAborted(signal)) throw interruptedOp(req.operation);
      const ctx = { system: "github" as const, operation: req.operation };
      if (timeout.aborted)
        throw new RemoteUnavailableError(
          `GitHub ${req.operation} timed out after ${opts.timeoutMs ?? 30_000} ms`,
          ctx,
          {
            hint: "GitHub did not answer in time; the run can be retried.",
            transient: true,
          },
        );
      throw (
        graphqlError(err, ctx, { tokenEnv: opts.tokenEnv, now: now() }) ??
        toSyncError(err, ctx, { tokenEnv: opts.tokenEnv, now: now() })
      );
    } finally {
      linked.release();
    }
  }

  /** An unconditional request's answer (a 304 to one is the service's fault). */
  function must(res: GithubResponse | undefined, req: GithubRequest): GithubResponse {
    if (res !== undefined) return res;
    throw new PayloadInvalidError(
      `GitHub ${req.operation} answered 304 to an unconditional request`,
      { system: "github", operation: req.operation, id: req.id },
    );
  }

  /** One attempt; `undefined` when a conditional GET was answered 304. */
  async function attempt(req: GithubRequest): Promise<GithubResponse | undefined> {
    if (req.signal?.aborted === true) throw interrupted(req);
    const headers: Record<string, string> = { ...req.headers, "x-github-api-version": API_VERSION };
    if (req.ifNoneMatch !== undefined && req.ifNoneMatch !== "") {
      headers["if-none-match"] = req.ifNoneMatch;
    }
    const started = now();
    // One debug line per request (the logger is bound to the system: no `system` key here).
    const logHttp = (status: number | string): void => {
      opts.logger?.debug(
        {
          method: req.method,
          path: requestPath(req.url, opts),
          status,
          ms: now() - started,
          operation: req.operation,
          item: req.id,
        },
        "http",
      );
    };
    const timeout = AbortSignal.timeout(opts.timeoutMs ?? 30_000);
    // One signal per request on the call's and the timeout's (abort-watch.ts `linkedSignals`).
    const linked = linkedSignals(req.signal, timeout);
    const signal = linked.signal;
    try {
      let res: Awaited<ReturnType<typeof send>>;
      try {
        res = await send({
          method: req.method,
          url: req.url,
          // Only for URL templates: Octokit appends unused parameters to the query, so a `link`
          // URL followed as given would grow by `owner=…&repo=…` on every page (past 150 pages
          // the `link` header that echoes it overflows the client's header limit).
          ...(req.url.includes("{owner}") ? { owner: opts.owner, repo: opts.repo } : {}),
          ...req.params,
          headers,
          // The body is read here (responseData): Octokit's own parse of every success body goes
          // through a BigInt-aware JSON reader that rewrites the whole text with regular
          // expressions first, a sixth of everything a migration allocated.
          request: { signal, parseSuccessResponseBody: false },
        });
      } catch (err) {
        const e = asHttpError(err);
        remember(e.response?.headers);
        logHttp(e.status ?? (timeout.aborted ? "timeout" : (errorCode(err) ?? "error")));
        if (e.status === 304) return undefined;
        if (isAborted(req.signal)) throw interrupted(req);
        const ctx = { system: "github" as const, operation: req.operation, id: req.id };
        const error = timeout.aborted
          ? new RemoteUnavailableError(
              `GitHub ${req.operation} timed out after ${opts.timeoutMs ?? 30_000} ms at ${opts.baseUrl.replace(/\/+$/, "")}`,
              ctx,
              { hint: "GitHub did not answer in time; the run can be retried.", transient: true },
            )
          : toSyncError(err, ctx, {
              tokenEnv: opts.tokenEnv,
              now: now(),
              baseUrl: opts.baseUrl.replace(/\/+$/, ""),
              networkCode: errorCode(err),
            });
        throw error;
      }
      const data = await responseData(res.data, res.headers as Headers);
      if (isAborted(req.signal)) throw interrupted(req);
      logHttp(res.status);
      remember(res.headers as Headers);
      return checkedJson(req, { status: res.status, headers: res.headers as Headers, data });
    } finally {
      linked.release();
    }
  }
}

/** The path a request goes to: `{owner}`/`{repo}` filled in, a full `link` URL cut to its path. */
function requestPath(url: string, o: { owner: string; repo: string }): string {
  const filled = url.replaceAll("{owner}", o.owner).replaceAll("{repo}", o.repo);
  if (!/^https?:\/\//.test(filled)) return filled;
  const parsed = new URL(filled);
  return `${parsed.pathname}${parsed.search}`;
}

/** The network error's code under fetch's `cause` (`ECONNREFUSED`, `UND_ERR_SOCKET`…). */
function errorCode(err: unknown): string | undefined {
  const cause = (err as { cause?: { code?: unknown; cause?: { code?: unknown } } }).cause;
  const code = cause?.code ?? cause?.cause?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * A success answer's body, left unread by Octokit (`parseSuccessResponseBody: false`): JSON parsed,
 * other text as text. A body that fails to arrive or to parse is kept as text (possibly empty),
 * which `checkedJson` reports as cut off in transit, as Octokit's own reading did.
 */
async function responseData(body: unknown, headers: Headers): Promise<unknown> {
  if (body === null || body === undefined) return undefined;
  if (!(body instanceof ReadableStream)) return body;
  let text: string;
  try {
    text = await new Response(body).text();
  } catch {
    return "";
  }
  if (!/\bjson\b/i.test(String(headers["content-type"] ?? ""))) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The client keeps the raw text when a JSON answer does not parse: a body cut off in transit.
 * That is transient (throws a retryable RemoteUnavailableError), not an invalid payload.
 */
function checkedJson(req: GithubRequest, res: GithubResponse): GithubResponse {
  const json = /\bjson\b/i.test(String(res.headers["content-type"] ?? ""));
  if (!json || typeof res.data !== "string") return res;
  throw new RemoteUnavailableError(
    `GitHub ${req.operation} answered a JSON body that does not parse (cut off in transit?)`,
    { system: "github", operation: req.operation, id: req.id, status: res.status },
    { hint: "The connection dropped mid-answer; the run can be retried.", transient: true },
  );
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function interrupted(req: GithubRequest): InterruptedError {
  return interruptedOp(req.operation);
}

function interruptedOp(operation: string): InterruptedError {
  return new InterruptedError(`GitHub ${operation} was interrupted by a stop signal`, {
    hint: "Run the command again: it resumes where it stopped.",
  });
}
