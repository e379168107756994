import { watchAbort } from "./abort-watch.js";

/**
 * Waits `ms` milliseconds on the wall clock; `signal` cuts the wait short, rejecting with its
 * reason. The one abortable sleep of the tool (the request gate's clock, the pacers, the
 * adapters' waits, the state's retries).
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      unwatch();
      resolve();
    }, ms);
    const unwatch =
      signal === undefined
        ? () => undefined
        : watchAbort(signal, () => {
            clearTimeout(timer);
            reject(signal.reason as Error);
          });
  });
}
