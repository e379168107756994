import { watchAbort } from "../core/abort-watch.js";
import { sleep } from "../core/sleep.js";

/** A clock the lanes can run on: `now` in ms and an abortable `sleep`. */
export interface Clock {
  readonly now: () => number;
  /** Resolves after `ms`; rejects with the signal's reason when it aborts first. */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly resolve: () => void;
}

/**
 * A clock for tests, simulations and benchmarks whose time moves only when every piece of
 * work is asleep: once the event loop has nothing else to do, it jumps to the earliest wake-up.
 * An hour of paced calls then takes milliseconds, and the order of events is deterministic.
 *
 * @example
 * const clock = createVirtualClock();
 * const lanes = createLanes({ limits, now: clock.now, sleep: clock.sleep });
 */
export function createVirtualClock(start = 0): Clock {
  let time = start;
  let seq = 0;
  let scheduled = false;
  const timers: Timer[] = [];

  const tick = (): void => {
    scheduled = false;
    timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const next = timers.shift();
    if (next === undefined) return;
    time = Math.max(time, next.at);
    next.resolve();
    schedule();
  };
  const schedule = (): void => {
    if (scheduled || timers.length === 0) return;
    scheduled = true;
    setImmediate(tick);
  };

  return {
    now: () => time,
    sleep: (ms, signal) => {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason as Error);
          return;
        }
        const timer: Timer = { at: time + Math.max(0, ms), seq: seq++, resolve: done };
        function done(): void {
          unwatch();
          resolve();
        }
        const unwatch =
          signal === undefined
            ? () => undefined
            : watchAbort(signal, () => {
                const index = timers.indexOf(timer);
                if (index >= 0) timers.splice(index, 1);
                reject(signal.reason as Error);
              });
        timers.push(timer);
        schedule();
      });
    },
  };
}

/** Wall-clock time: `Date.now` and an abortable `setTimeout`. */
export const realClock: Clock = { now: Date.now, sleep };
