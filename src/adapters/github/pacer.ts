/**
 * Write pacing under GitHub's content-creation limits (80 per minute, 500 per hour by default):
 * writes are spaced by a minimum interval and kept under the hourly count in any sliding hour,
 * so that the limit is never hit (no retry happens here: the engine's queue is the one layer
 * that retries). `timeScale` runs the clock N times faster: a testing and benchmark aid for
 * sandboxes that run their limits on a scaled clock too.
 */

export interface PacerOptions {
  /** Default 80 (GitHub's documented content-creation limit). */
  readonly writesPerMinute?: number | undefined;
  /** Default 500. */
  readonly writesPerHour?: number | undefined;
  /** Clock speed-up for tests and benchmarks against a scaled sandbox. Default 1. */
  readonly timeScale?: number | undefined;
  /** Share of the permitted rate to use, for timer and network jitter. Default 0.98. */
  readonly utilization?: number | undefined;
  readonly now?: (() => number) | undefined;
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

export interface PacerState {
  readonly writesPerMinute: number;
  readonly writesPerHour: number;
  readonly timeScale: number;
  /** Real milliseconds between two writes. */
  readonly intervalMs: number;
  /** Writes let through so far. */
  readonly granted: number;
  /** Real milliseconds an `acquire()` made now would wait. */
  readonly delayMs: number;
}

export interface Pacer {
  /** Waits for the next write slot and takes it. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** Real milliseconds until the next free slot. */
  delayMs(): number;
  state(): PacerState;
}

export interface PacerPlan {
  readonly intervalMs: number;
  readonly hourWindowMs: number;
  readonly perHour: number;
}

/** The pacing constants, in real milliseconds. */
export function planPacing(opts: PacerOptions): PacerPlan {
  const perMinute = positive(opts.writesPerMinute, 80, "writesPerMinute");
  const perHour = positive(opts.writesPerHour, 500, "writesPerHour");
  const scale = positive(opts.timeScale, 1, "timeScale");
  const use = opts.utilization ?? 0.98;
  if (!(use > 0 && use <= 1))
    throw new RangeError(`pacer utilization must be in (0, 1], got ${use}`);
  const intervalMs = 60_000 / (perMinute * use) / scale;
  return { intervalMs, hourWindowMs: 3_600_000 / scale + intervalMs, perHour: Math.floor(perHour) };
}

function positive(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!(v > 0)) throw new RangeError(`pacer ${name} must be a positive number, got ${v}`);
  return v;
}

/**
 * The earliest time (≥ now) the next write may start: one interval after the previous slot, and
 * one hour window after the write `perHour` slots back. Pure.
 */
export function nextSlot(args: {
  now: number;
  last: number | undefined;
  recent: readonly number[];
  plan: PacerPlan;
}): number {
  const { now, last, recent, plan } = args;
  let t = last === undefined ? now : Math.max(now, last + plan.intervalMs);
  if (Number.isFinite(plan.perHour) && recent.length >= plan.perHour) {
    const oldest = recent[recent.length - plan.perHour];
    if (oldest !== undefined) t = Math.max(t, oldest + plan.hourWindowMs);
  }
  return t;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A pacer for one token: slots are reserved synchronously, so concurrent callers queue up. */
export function createPacer(opts: PacerOptions = {}): Pacer {
  const plan = planPacing(opts);
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? defaultSleep;
  const recent: number[] = [];
  let last: number | undefined;
  let granted = 0;
  const delayMs = (): number => Math.max(0, nextSlot({ now: now(), last, recent, plan }) - now());
  return {
    async acquire(signal) {
      const t = now();
      const slot = nextSlot({ now: t, last, recent, plan });
      last = slot;
      granted++;
      recent.push(slot);
      if (recent.length > plan.perHour * 2 + 10) recent.splice(0, recent.length - plan.perHour);
      if (slot > t) await sleep(slot - t, signal);
    },
    delayMs,
    state() {
      return {
        writesPerMinute: opts.writesPerMinute ?? 80,
        writesPerHour: opts.writesPerHour ?? 500,
        timeScale: opts.timeScale ?? 1,
        intervalMs: plan.intervalMs,
        granted,
        delayMs: delayMs(),
      };
    },
  };
}
