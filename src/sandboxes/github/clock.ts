/**
 * The sandbox's clock. With `timeScale` N, sandbox time runs N times faster than real time from
 * the moment the clock is made, so rate-limit windows and timestamps move N times faster.
 */
export interface Clock {
  /** Sandbox time in epoch milliseconds. */
  now(): number;
  /** Converts a sandbox duration (ms) to the real duration a client must wait (ms). */
  toReal(ms: number): number;
  /** The real epoch time (ms) at which sandbox time reaches `t`. */
  realAt(t: number): number;
  readonly timeScale: number;
}

export function createClock(timeScale = 1, realNow: () => number = Date.now): Clock {
  if (!Number.isFinite(timeScale) || timeScale <= 0) {
    throw new Error(`time scale must be a positive number, got ${String(timeScale)}`);
  }
  const start = realNow();
  return {
    timeScale,
    now: () => start + (realNow() - start) * timeScale,
    toReal: (ms) => ms / timeScale,
    realAt: (t) => start + (t - start) / timeScale,
  };
}

/** `YYYY-MM-DDTHH:MM:SSZ`, GitHub's timestamp form (whole seconds). */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** Parses an ISO-8601 timestamp or date; undefined when invalid. */
export function parseTimestamp(text: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}
