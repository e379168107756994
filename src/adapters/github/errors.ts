/** GitHub's error answers → core's typed errors (the gate reads `RateLimitError.retryAfterMs`). */
import {
  AuthError,
  NotFoundError,
  PayloadInvalidError,
  PermissionError,
  RateLimitError,
  RemoteUnavailableError,
  type RemoteContext,
  type SyncError,
} from "../../core/errors.js";
import { rateLimitVerdict, readRateLimit, type Headers } from "./rate-limit.js";

interface HttpErrorLike {
  readonly status?: number;
  readonly message?: string;
  readonly name?: string;
  readonly response?: { readonly headers?: Headers; readonly data?: unknown };
}

export function asHttpError(err: unknown): HttpErrorLike {
  return typeof err === "object" && err !== null ? err : {};
}

function errorsOf(data: unknown): unknown[] {
  if (typeof data !== "object" || data === null) return [];
  const errors = (data as { errors?: unknown }).errors;
  return Array.isArray(errors) ? errors : [];
}

function messageOf(e: HttpErrorLike): string {
  const data = e.response?.data;
  if (typeof data === "object" && data !== null) {
    const m = (data as { message?: unknown }).message;
    if (typeof m === "string") return m;
  }
  return e.message ?? "no message";
}

/**
 * Maps an Octokit error to the typed errors of core: 401 → AuthError, 403 → PermissionError (or
 * RateLimitError for a limit), 404/410 → NotFoundError, 400/422 → PayloadInvalidError with
 * GitHub's `errors[]`, 429 → RateLimitError, 5xx, resets and timeouts → transient
 * RemoteUnavailableError. Messages never carry the token or the authorization header.
 */
export function toSyncError(
  err: unknown,
  ctx: RemoteContext,
  opts: {
    tokenEnv?: string | undefined;
    now?: number | undefined;
    /** Named when no answer came (a refused connection, a reset). */
    baseUrl?: string | undefined;
    /** The network error's code (`ECONNREFUSED`…), when no answer came. */
    networkCode?: string | undefined;
  } = {},
): SyncError {
  const e = asHttpError(err);
  const status = e.status;
  const at = `${ctx.operation}${ctx.id === undefined ? "" : ` (#${ctx.id})`}`;
  const message = messageOf(e);
  const full: RemoteContext = { ...ctx, status };
  const headers = e.response?.headers ?? {};
  if (e.response === undefined && opts.baseUrl !== undefined) {
    return new RemoteUnavailableError(
      `GitHub ${at} could not reach the server at ${opts.baseUrl} (${opts.networkCode ?? message})`,
      full,
      {
        hint: "Check the target's baseUrl and that the server is running; the run can be retried.",
        transient: true,
      },
    );
  }
  if (status === undefined || e.response === undefined || status >= 500) {
    return new RemoteUnavailableError(
      `GitHub ${at} failed: ${status ?? "no status"} ${message}`,
      full,
      {
        hint: "GitHub did not answer properly; the run can be retried.",
        transient: true,
      },
    );
  }
  const verdict = rateLimitVerdict({ status, headers, message, now: opts.now ?? Date.now() });
  if (verdict !== undefined) {
    return new RateLimitError(
      `GitHub ${verdict.limit} rate limit on ${at}: wait ${verdict.retryAfterMs} ms (from ${verdict.source}); GitHub said "${message}"`,
      full,
      {
        retryAfterMs: verdict.retryAfterMs,
        limit: verdict.limit,
        hint: "Wait, or lower writesPerMinute/writesPerHour in the target's limits.",
        details: { rateLimit: readRateLimit(headers), source: verdict.source },
      },
    );
  }
  return statusError({
    status,
    at,
    message,
    full,
    errors: errorsOf(e.response.data),
    tokenEnv: opts.tokenEnv,
  });
}

function statusError(a: {
  status: number;
  at: string;
  message: string;
  full: RemoteContext;
  errors: unknown[];
  tokenEnv: string | undefined;
}): SyncError {
  const { status, at, message, full } = a;
  const what = `GitHub ${at} failed: ${status} ${message}`;
  if (status === 401) {
    const where = a.tokenEnv === undefined ? "the GitHub token" : `the token in ${a.tokenEnv}`;
    return new AuthError(`${what} (${where} was rejected)`, full, {
      hint: `Check ${where}: it may be expired, revoked or mistyped.`,
    });
  }
  if (status === 403) {
    return new PermissionError(what, full, {
      hint: "Give the token write access to the repository's issues (fine-grained: Issues read/write).",
    });
  }
  if (status === 404 || status === 410) {
    return new NotFoundError(what, full, {
      hint: "Check owner, repo and the item id; 410 means issues are disabled or the issue was deleted.",
    });
  }
  return new PayloadInvalidError(
    a.errors.length > 0 ? `${what}: ${JSON.stringify(a.errors)}` : what,
    full,
    { hint: "GitHub refused the payload; see details.errors.", details: { errors: a.errors } },
  );
}
