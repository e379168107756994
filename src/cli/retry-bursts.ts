/**
 * When a server goes away, every request in flight fails at once and each is retried: a burst
 * of the same failure, attempt by attempt. One warning line per burst (the first request's, per
 * system, error code and attempt) says it; the rest of that burst go to debug.
 */

/** How long a burst lasts: a retry of the same system, code and attempt within it is the same. */
export const RETRY_BURST_MS = 60_000;

export interface RetryBursts {
  /** True for the first retry of its burst (log it as a warning), false for the others. */
  first(e: { system: string; code: string; attempt: number }, nowMs: number): boolean;
}

export function retryBursts(windowMs = RETRY_BURST_MS): RetryBursts {
  const seen = new Map<string, number>();
  return {
    first(e, nowMs) {
      const key = `${e.system}\u0000${e.code}\u0000${e.attempt}`;
      const at = seen.get(key);
      if (at !== undefined && nowMs - at < windowMs) return false;
      seen.set(key, nowMs);
      return true;
    },
  };
}
