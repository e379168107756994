import { watchAbort } from "../core/abort-watch.js";

/** At most `limit` holders at once; the others wait in order, each able to give up (abort). */
interface Semaphore {
  /** Resolves once a place is free and taken; rejects with the signal's reason on abort. */
  acquire(signal?: AbortSignal): Promise<void>;
  release(): void;
}

interface Waiter {
  readonly grant: () => void;
}

export function createSemaphore(limit: number): Semaphore {
  let active = 0;
  const waiting: Waiter[] = [];
  return {
    acquire(signal) {
      if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
      if (active < limit && waiting.length === 0) {
        active++;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          grant: () => {
            unwatch();
            resolve();
          },
        };
        const unwatch =
          signal === undefined
            ? () => undefined
            : watchAbort(signal, () => {
                const index = waiting.indexOf(waiter);
                if (index >= 0) waiting.splice(index, 1);
                reject(signal.reason as Error);
              });
        waiting.push(waiter);
      });
    },
    release() {
      const next = waiting.shift();
      if (next === undefined) active--;
      else next.grant();
    },
  };
}
