import { RateLimitError, RemoteUnavailableError } from "../core/errors.js";

/** Limits of the retry loop: attempts, backoff and the total time budget. */
export interface RetryPolicy {
  /** Attempts in all, the first one included. @default 6 */
  readonly maxAttempts: number;
  /** Backoff ceiling of the first retry, doubled per attempt. @default 500 */
  readonly baseDelayMs: number;
  /** Cap of the backoff ceiling (not of a wait the remote asked for). @default 30_000 */
  readonly maxDelayMs: number;
  /** No retry starts later than this after the first attempt. @default 600_000 */
  readonly maxTotalMs: number;
}

/** The retry policy the lanes use when the caller gives none. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxTotalMs: 600_000,
};

/** Whether the failed call may have had an effect: a timeout, reset or 5xx. */
export function isAmbiguous(error: unknown): boolean {
  return error instanceof RemoteUnavailableError && error.transient;
}

/** A `Retry-After` a 503 carried, when the adapter put it in `details.retryAfterMs`. */
function askedWait(error: RemoteUnavailableError): number {
  const value = error.details.retryAfterMs;
  return typeof value === "number" && value > 0 ? value : 0;
}

/**
 * How long to wait before retrying a failed call, or `undefined` to give up and throw.
 *
 * - `RateLimitError`: exactly its `retryAfterMs` (the request was refused, so even a
 *   non-idempotent call is safe to repeat);
 * - transient `RemoteUnavailableError` on an idempotent call: full jitter,
 *   `random() × min(maxDelayMs, baseDelayMs × 2^(attempt-1))`, at least a `Retry-After`;
 * - anything else (auth, permission, not found, payload, conflict, unknown): never.
 *
 * Gives up once `attempt` (1-based, the attempt that just failed) reaches `maxAttempts`, or
 * when the wait would end past `maxTotalMs` after the first attempt.
 */
export function retryDelay(o: {
  attempt: number;
  error: unknown;
  policy: RetryPolicy;
  random?: () => number;
  idempotent: boolean;
  elapsedMs: number;
}): number | undefined {
  const { attempt, error, policy } = o;
  if (attempt >= policy.maxAttempts) return undefined;
  let delay: number;
  if (error instanceof RateLimitError) {
    delay = Math.max(0, error.retryAfterMs);
  } else if (isAmbiguous(error) && o.idempotent) {
    const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
    const jitter = Math.floor((o.random ?? Math.random)() * ceiling);
    delay = Math.max(jitter, askedWait(error as RemoteUnavailableError));
  } else {
    return undefined;
  }
  return o.elapsedMs + delay > policy.maxTotalMs ? undefined : delay;
}
