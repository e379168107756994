/** At most `limit` call starts in any `windowMs` long stretch of time. */
export interface RateWindow {
  readonly limit: number;
  readonly windowMs: number;
}

/** Hands out start times that keep every window's limit. */
interface Pacer {
  /**
   * Reserves the earliest start at or after `now` that keeps every limit, counting the
   * starts reserved before. The caller waits until then and starts the call.
   */
  reserve(now: number): number;
  /** Gives a reserved start back (the lane was paused before it came). */
  cancel(slot: number): void;
}

/**
 * Paces call starts against sliding windows (e.g. 80 per minute and 500 per hour), spacing
 * them evenly by the shortest window (750 ms for 80/min) so a burst never empties a window at
 * once. Starts exactly `windowMs / limit` apart fill a window to its limit and no further, so a
 * saturated lane runs at the permitted rate, never over it (GitHub secondary limits:
 * https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api).
 */
export function createPacer(windows: readonly RateWindow[]): Pacer {
  const active = windows.filter((w) => Number.isFinite(w.limit));
  const horizon = Math.max(0, ...active.map((w) => w.windowMs));
  const shortest = [...active].sort((a, b) => a.windowMs - b.windowMs)[0];
  const spacing = shortest === undefined ? 0 : shortest.windowMs / shortest.limit;
  /** Reserved starts, ascending, within the longest window. */
  const slots: number[] = [];

  /** The index of the first reserved start after `t` (slots are ascending). */
  const firstAfter = (t: number): number => {
    let lo = 0;
    let hi = slots.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((slots[mid] ?? 0) > t) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };

  // A binary search, not a scan: a lifted read limit keeps thousands of starts in its window.
  const earliest = (from: number): number => {
    let t = from;
    for (let changed = true; changed;) {
      changed = false;
      for (const w of active) {
        const inWindow = slots.length - firstAfter(t - w.windowMs);
        const blocker = slots[slots.length - w.limit];
        if (inWindow >= w.limit && blocker !== undefined && blocker + w.windowMs > t) {
          t = blocker + w.windowMs;
          changed = true;
        }
      }
    }
    return t;
  };

  return {
    reserve(now) {
      while (slots.length > 0 && (slots[0] ?? 0) <= now - horizon) slots.shift();
      const last = slots.at(-1);
      const slot = earliest(Math.max(now, last === undefined ? now : last + spacing));
      slots.push(slot);
      return slot;
    },
    cancel(slot) {
      const index = slots.lastIndexOf(slot);
      if (index >= 0) slots.splice(index, 1);
    },
  };
}
