/** tinyPM's error answers and transport failures → core's typed errors (style.md R11). */
import { CancelError, RequestError, TimeoutError } from "got";
import {
  AuthError,
  InterruptedError,
  NotFoundError,
  PayloadInvalidError,
  PermissionError,
  RateLimitError,
  RemoteUnavailableError,
  SyncError,
  type RemoteContext,
} from "../../core/errors.js";
import { rawError } from "./schema.js";
import { XmlRejection, parseXml, snippetOf, type XmlLimits } from "./wire.js";

function errorMessage(body: string, limits: XmlLimits): string {
  try {
    const parsed = rawError.safeParse(parseXml(body, limits).root);
    if (parsed.success && parsed.data.message) return snippetOf(parsed.data.message, 200);
  } catch {
    // not an <error> document: fall back to the raw snippet
  }
  return snippetOf(body, 200);
}

function retryAfterMs(header: string | string[] | undefined): number {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return 1000;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? 1000 : Math.max(0, date - Date.now());
}

/** A non-2xx tinyPM answer → the typed error (style.md R11). */
export function httpError(
  ctx: RemoteContext,
  status: number,
  body: string,
  retryAfter: string | string[] | undefined,
  limits: XmlLimits,
): SyncError {
  const evidence = errorMessage(body, limits);
  const c = { ...ctx, status };
  const what = `tinyPM ${ctx.operation}${ctx.id ? ` (id ${ctx.id})` : ""}`;
  if (status === 401) {
    return new AuthError(
      `${what} was refused: the API token was not accepted (401: ${evidence}).`,
      c,
      {
        hint: "Check the token in the variable named by tokenEnv (tinyPM: Settings → API Settings), then run `tinypm-sync check`.",
      },
    );
  }
  if (status === 403) {
    return new PermissionError(
      `${what} was refused: the API is disabled or the action is not permitted (403: ${evidence}).`,
      c,
      {
        hint: "Enable the API in tinyPM under Settings → API Settings, then run `tinypm-sync check`.",
      },
    );
  }
  if (status === 404) return new NotFoundError(`${what} found nothing (404: ${evidence}).`, c);
  if (status === 429) {
    const wait = retryAfterMs(retryAfter);
    return new RateLimitError(
      `${what} was rate limited (429); tinyPM asks to wait ${wait} ms.`,
      c,
      {
        retryAfterMs: wait,
        hint: "Lower the tinyPM lane's limits in the config.",
      },
    );
  }
  if (status >= 500) {
    return new RemoteUnavailableError(`${what} failed on the server (${status}: ${evidence}).`, c, {
      transient: status !== 501,
      hint: "Retry later; check the tinyPM server's logs if it persists.",
    });
  }
  return new PayloadInvalidError(`${what} was rejected (${status}: ${evidence}).`, c, {
    hint: "The request was not accepted by this tinyPM server; check the values being written.",
  });
}

/** A got error without its options (which hold the token header): name, message and code only. */
export function sanitized(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  const clean = new Error(`${error.name}: ${error.message}`);
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") Object.assign(clean, { code });
  return clean;
}

/** An answer that is not XML: the base URL points at some other server (foreign-answer.ts). */
export function notTinypm(
  ctx: RemoteContext,
  baseUrl: string,
  status: number,
  foreign: string,
  body: string,
): SyncError {
  const what = `tinyPM ${ctx.operation}${ctx.id ? ` (id ${ctx.id})` : ""}`;
  return new PayloadInvalidError(
    `${what}: not a tinyPM API at ${baseUrl} (it answered ${status} with ${foreign}, not XML: ${snippetOf(body, 120)}).`,
    { ...ctx, status },
    {
      hint: "Check tinypm.baseUrl in the config: it is the API's root, e.g. https://host/tinypm/api (`tinypm-sync reference-server` prints its own).",
    },
  );
}

/**
 * Any error met while talking to tinyPM → a core error, keeping `cause` and no secret; one that
 * got no answer names `baseUrl`.
 */
export function toSyncError(error: unknown, ctx: RemoteContext, baseUrl?: string): SyncError {
  if (error instanceof SyncError) return error;
  const what = `tinyPM ${ctx.operation}${ctx.id ? ` (id ${ctx.id})` : ""}`;
  const at = baseUrl === undefined ? "" : ` at ${baseUrl}`;
  if (error instanceof XmlRejection) {
    return new PayloadInvalidError(
      `${what} returned a refused document: ${error.message} (${error.snippet}).`,
      ctx,
      {
        hint: "The server sent XML this tool does not accept (hostile, too large or malformed).",
      },
    );
  }
  if (error instanceof CancelError || (error instanceof Error && error.name === "AbortError")) {
    return new InterruptedError(`${what} was cancelled.`, { cause: sanitized(error) });
  }
  if (error instanceof TimeoutError) {
    return new RemoteUnavailableError(`${what} timed out${at} (${error.message}).`, ctx, {
      cause: sanitized(error),
      transient: true,
    });
  }
  if (error instanceof RequestError) {
    return new RemoteUnavailableError(
      `${what} could not reach the server${at} (${error.code}).`,
      ctx,
      {
        cause: sanitized(error),
        transient: true,
        hint: "Check the tinyPM base URL and that the server is running.",
      },
    );
  }
  return new RemoteUnavailableError(
    `${what} failed: ${error instanceof Error ? error.message : String(error)}.`,
    ctx,
    {
      cause: sanitized(error),
      transient: false,
    },
  );
}
