/**
 * A service's clock as its answers' `Date` headers tell it, for comparisons with the change
 * times the service stamps (pending-writes.ts): the host's clock may be off by seconds or more.
 *
 * A `Date` header is the service's time in whole seconds, taken before the answer left, so
 * `header − host time at receipt` is at most the true offset and at least a second and the
 * answer's travel less. The largest of the recent ones is the best estimate, and never ahead of
 * the service: a time from `now()` is at or before the service's own.
 */
export interface ServerClock {
  /** Takes in one answer's `Date` header (ignored when absent or not a date). */
  observe(dateHeader: unknown): void;
  /** Now on the service's clock; undefined before any answer with a date. */
  now(): Date | undefined;
}

/** How many recent answers the estimate is the largest of (a clock may be reset meanwhile). */
const KEPT = 32;

export function createServerClock(hostNow: () => number = Date.now): ServerClock {
  const offsets: number[] = [];
  let best: number | undefined;
  return {
    observe(dateHeader) {
      if (typeof dateHeader !== "string") return;
      const at = Date.parse(dateHeader);
      if (Number.isNaN(at)) return;
      offsets.push(at - hostNow());
      if (offsets.length > KEPT) offsets.shift();
      best = Math.max(...offsets);
    },
    now() {
      return best === undefined ? undefined : new Date(hostNow() + best);
    },
  };
}
