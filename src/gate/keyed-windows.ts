/**
 * Keyed windows of the request gate: limits that hold per key rather than per system, such as
 * Jira Cloud's per-issue write limits (20 per 2 s and 100 per 30 s), so that a migration never
 * trips them. Pure bookkeeping with an injectable clock: `reserve` says how long to wait before
 * the next request on a key and books that slot. It never retries; the gate does.
 */

export interface KeyWindow {
  readonly max: number;
  readonly ms: number;
}

interface KeyedWindows {
  /** Milliseconds to wait before writing to `key`; the write is booked at now + wait. */
  reserve(key: string): number;
  /** How many issues are being tracked (bounded: idle issues are forgotten). */
  size(): number;
}

interface KeyedWindowsOptions {
  readonly windows: readonly KeyWindow[];
  readonly now?: (() => number) | undefined;
}

export function createKeyedWindows(options: KeyedWindowsOptions): KeyedWindows {
  const windows = options.windows;
  const now = options.now ?? Date.now;
  const longest = Math.max(0, ...windows.map((w) => w.ms));
  const booked = new Map<string, number[]>();
  let lastSweep = 0;

  const sweep = (t: number): void => {
    if (t - lastSweep < longest) return;
    lastSweep = t;
    for (const [key, times] of booked) if ((times.at(-1) ?? 0) <= t - longest) booked.delete(key);
  };

  return {
    reserve(key) {
      const t = now();
      sweep(t);
      const times = booked.get(key) ?? [];
      // Writes to one issue are sequential: by the time the next one is asked for, the previous
      // one has been answered. Counting it from now (its completion) rather than from when it
      // was booked means a slow request can never squeeze 21 arrivals into Jira's window.
      const last = times.length - 1;
      const previous = times[last];
      if (previous !== undefined && previous < t) times[last] = Math.min(t, previous + longest);
      let at = t;
      for (const w of windows) {
        // The write may happen once fewer than `max` writes lie within (at − ms, at].
        const inWindow = times.filter((x) => x > at - w.ms);
        if (inWindow.length >= w.max)
          at = Math.max(at, (inWindow[inWindow.length - w.max] ?? at) + w.ms);
      }
      times.push(at);
      while ((times[0] ?? Infinity) <= at - longest) times.shift();
      booked.set(key, times);
      return at - t;
    },
    size: () => booked.size,
  };
}
