/**
 * One "abort" listener per signal, however many waits watch it. A run's signal is watched by
 * every request of the run that waits for a place, a slot or its answer: hundreds at once in a
 * large fan-out. Each wait registering a listener of its own put that many on one signal (Node
 * warns past 10); here they share one, added by the first watcher and removed with the last.
 */

interface Watchers {
  readonly callbacks: Set<() => void>;
  readonly fire: () => void;
}

const watched = new WeakMap<AbortSignal, Watchers>();

/**
 * Calls `callback` once when `signal` aborts (at once if it already has), unless the returned
 * function was called first. Call it when the wait ends another way: it removes the watch, and
 * the signal's listener with the last watch.
 */
export function watchAbort(signal: AbortSignal, callback: () => void): () => void {
  if (signal.aborted) {
    callback();
    return () => undefined;
  }
  let entry = watched.get(signal);
  if (entry === undefined) {
    const callbacks = new Set<() => void>();
    const fire = (): void => {
      watched.delete(signal);
      for (const each of [...callbacks]) each();
      callbacks.clear();
    };
    entry = { callbacks, fire };
    watched.set(signal, entry);
    signal.addEventListener("abort", fire, { once: true });
  }
  const { callbacks, fire } = entry;
  // A wrapper per watch: the same function watched twice is two watches.
  const watch = (): void => {
    callback();
  };
  callbacks.add(watch);
  return () => {
    if (!callbacks.delete(watch) || callbacks.size > 0) return;
    if (watched.get(signal)?.callbacks === callbacks) watched.delete(signal);
    signal.removeEventListener("abort", fire);
  };
}

/**
 * A signal of its own that aborts with the first of `signals` to abort (those `undefined` left
 * out), for one request or wait handed to code that listens to the signal it is given (a clock's
 * sleep, an SDK call): that code's listener goes on this signal, and each source keeps one
 * watch. Call `release` when the wait is over. `AbortSignal.any` does the same
 * but, on Node 20, leaves an entry on each source signal for every call, for as long as the source
 * lives: one per request on a run's or a process's signal (30,000 in a 16,000-item migration; a
 * `serve` process's never went away). Here each source keeps one watch until `release`.
 */
export function linkedSignals(...signals: readonly (AbortSignal | undefined)[]): {
  signal: AbortSignal;
  release: () => void;
} {
  const controller = new AbortController();
  const unwatch: (() => void)[] = [];
  for (const source of signals) {
    if (source === undefined) continue;
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    unwatch.push(
      watchAbort(source, () => {
        controller.abort(source.reason);
      }),
    );
  }
  return {
    signal: controller.signal,
    release: () => {
      for (const each of unwatch.splice(0)) each();
    },
  };
}
