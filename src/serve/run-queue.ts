import type { ItemSelection, RunTrigger } from "./types.js";

/** A run the queue hands to its executor: one job, whole or limited to named items. */
export interface QueuedRun {
  readonly job: string;
  /** Target ids named by webhooks; undefined = the whole job. */
  readonly items: ItemSelection;
  /** Every reason that asked for this run (triggers coalesce). */
  readonly triggers: readonly RunTrigger[];
}

export interface RunQueueOptions {
  /** Runs one job; a rejection is reported by the executor itself and never stops the queue. */
  readonly execute: (run: QueuedRun) => Promise<void>;
}

/** What the queue says about one job. */
export interface JobQueueStatus {
  readonly running: QueuedRun | undefined;
  readonly pending: QueuedRun | undefined;
}

/**
 * Runs jobs one at a time (one state file, one writer), in the order they were asked for. A job
 * asked for while it runs or waits is not queued twice: the requests coalesce into one follow-up
 * run, whose item selection is the union of theirs (a whole-job request absorbs any selection).
 * Exclusive tasks (a conflict resolved from the dashboard) run between runs, before the next one.
 */
export interface RunQueue {
  trigger(job: string, trigger: RunTrigger, items?: ItemSelection): void;
  exclusive<T>(fn: () => T | Promise<T>): Promise<T>;
  status(job: string): JobQueueStatus;
  /** Resolves once nothing runs or waits. */
  idle(): Promise<void>;
  /** Takes no more work, drops what waits, resolves when the current run has ended. */
  stop(): Promise<void>;
}

interface Pending {
  items: Set<string> | undefined;
  triggers: RunTrigger[];
}

export function createRunQueue(opts: RunQueueOptions): RunQueue {
  const order: string[] = [];
  const pending = new Map<string, Pending>();
  const tasks: (() => Promise<void>)[] = [];
  let running: QueuedRun | undefined;
  let stopped = false;
  let worker: Promise<void> | undefined;
  let idleWaiters: (() => void)[] = [];

  const snapshot = (job: string, p: Pending): QueuedRun => ({
    job,
    items: p.items === undefined ? undefined : new Set(p.items),
    triggers: [...p.triggers],
  });

  const work = async (): Promise<void> => {
    for (;;) {
      const task = tasks.shift();
      if (task !== undefined) {
        await task();
        continue;
      }
      const job = stopped ? undefined : order.shift();
      if (job === undefined) break;
      const p = pending.get(job);
      pending.delete(job);
      if (p === undefined) continue;
      running = snapshot(job, p);
      try {
        await opts.execute(running);
      } catch {
        // The executor reports its own failures; the queue goes on with the next run.
      } finally {
        running = undefined;
      }
    }
    worker = undefined;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };
  const kick = (): void => {
    worker ??= Promise.resolve().then(work);
  };

  return {
    trigger(job, trigger, items) {
      if (stopped) return;
      const p = pending.get(job);
      if (p === undefined) {
        pending.set(job, {
          items: items === undefined ? undefined : new Set(items),
          triggers: [trigger],
        });
        order.push(job);
      } else {
        if (!p.triggers.includes(trigger)) p.triggers.push(trigger);
        if (items === undefined) p.items = undefined;
        else if (p.items !== undefined) for (const id of items) p.items.add(id);
      }
      kick();
    },
    exclusive(fn) {
      return new Promise((resolve, reject) => {
        tasks.push(async () => {
          try {
            resolve(await fn());
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
        kick();
      });
    },
    status(job) {
      const p = pending.get(job);
      return {
        running: running?.job === job ? running : undefined,
        pending: p === undefined ? undefined : snapshot(job, p),
      };
    },
    idle() {
      if (worker === undefined) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async stop() {
      stopped = true;
      order.length = 0;
      pending.clear();
      await (worker ?? Promise.resolve());
    },
  };
}
