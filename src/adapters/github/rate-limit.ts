/** What GitHub's rate-limit headers and messages say, as a wait. Pure. */

export type Headers = Readonly<Record<string, string | number | undefined>>;

export interface RateLimitSnapshot {
  readonly limit?: number | undefined;
  readonly remaining?: number | undefined;
  readonly used?: number | undefined;
  /** UTC epoch seconds. */
  readonly reset?: number | undefined;
  readonly resource?: string | undefined;
}

interface RateLimitVerdict {
  readonly limit: "primary" | "secondary";
  readonly retryAfterMs: number;
  /** Where the wait came from, for messages. */
  readonly source: "retry-after" | "x-ratelimit-reset" | "secondary-default";
}

/** GitHub's documented minimum wait for a secondary limit without `retry-after`. */
const SECONDARY_DEFAULT_WAIT_MS = 60_000;

function num(v: string | number | undefined): number | undefined {
  if (v === undefined || v === "") return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/** The `x-ratelimit-*` headers of a response. */
export function readRateLimit(headers: Headers): RateLimitSnapshot {
  const resource = headers["x-ratelimit-resource"];
  return {
    limit: num(headers["x-ratelimit-limit"]),
    remaining: num(headers["x-ratelimit-remaining"]),
    used: num(headers["x-ratelimit-used"]),
    reset: num(headers["x-ratelimit-reset"]),
    resource: resource === undefined ? undefined : String(resource),
  };
}

/** Whether an error message is GitHub's secondary-limit message. */
function isSecondaryMessage(message: string): boolean {
  return /\bsecondary rate limit/i.test(message) || /abuse detection/i.test(message);
}

/**
 * Whether a 403/429 response is a rate limit, and the exact wait: `retry-after` seconds, else
 * `x-ratelimit-reset` − now when the quota is exhausted, else at least 60 s for a secondary limit
 * (GitHub's best-practice documentation). `undefined` when the response is no rate limit.
 */
export function rateLimitVerdict(args: {
  status: number;
  headers: Headers;
  message: string;
  now: number;
}): RateLimitVerdict | undefined {
  const { status, headers, message, now } = args;
  if (status !== 403 && status !== 429) return undefined;
  const secondary = isSecondaryMessage(message);
  const snap = readRateLimit(headers);
  const primary = snap.remaining === 0 && !secondary;
  if (!secondary && !primary && status !== 429) return undefined;
  const limit = primary ? "primary" : "secondary";
  const retryAfter = num(headers["retry-after"]);
  if (retryAfter !== undefined && retryAfter >= 0) {
    return { limit, retryAfterMs: Math.round(retryAfter * 1000), source: "retry-after" };
  }
  if (snap.remaining === 0 && snap.reset !== undefined) {
    return {
      limit,
      retryAfterMs: Math.max(0, snap.reset * 1000 - now),
      source: "x-ratelimit-reset",
    };
  }
  return { limit, retryAfterMs: SECONDARY_DEFAULT_WAIT_MS, source: "secondary-default" };
}
