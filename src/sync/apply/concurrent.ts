import PQueue from "p-queue";

/**
 * How many items the apply step works on at once. Not a request limit: every request still
 * passes its system's lane and request gate, which alone decide how many a token has in flight
 * and how fast (`limits.concurrency`, the write windows). This only keeps enough independent
 * items going for the gate to fill what the limits allow under real latency.
 */
export const APPLY_CONCURRENCY = 16;

/**
 * Runs `work` for every item through p-queue, `concurrency` at a time, and waits for all.
 * `work` settles an item's own failure (parks it, counts it); what it throws stops the run (a
 * fatal error: auth, a lost state, Ctrl-C): no further item starts, those in flight finish, and
 * the first such error is rethrown.
 */
export async function eachConcurrently<T>(
  items: readonly T[],
  work: (item: T, index: number) => Promise<void>,
  concurrency: number = APPLY_CONCURRENCY,
): Promise<void> {
  if (items.length === 0) return;
  const queue = new PQueue({ concurrency });
  let stop: { error: unknown } | undefined;
  for (const [index, item] of items.entries()) {
    void queue.add(async () => {
      if (stop !== undefined) return;
      try {
        await work(item, index);
      } catch (error) {
        stop ??= { error };
        queue.clear();
      }
    });
  }
  await queue.onIdle();
  if (stop !== undefined) throw stop.error;
}
