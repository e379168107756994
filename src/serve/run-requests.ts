import type { Logger } from "../log/logger.js";
import type { RunRequest, StateStore } from "../state/store.js";
import type { ServeMetrics } from "./metrics.js";
import type { QueuedRun } from "./run-queue.js";
import type { ItemSelection } from "./types.js";

/** How often a worker looks for run requests other workers recorded (their follow-up runs). */
export const REQUEST_POLL_MS = 5_000;

/** The triggers a skipped run records for later: someone asked for this run now. */
const ASKED = ["webhook", "manual"] as const;

/** What a run does about the waiting request of its job, decided before it starts. */
export interface RunPlan {
  /** Nothing asks for it any more (a deferred run whose request another worker settled). */
  readonly skip: boolean;
  /** The run's items: the whole job when it covers a request (its deliveries named any item). */
  readonly items: ItemSelection;
  /** The version of the request the run covers, settled when it ends. */
  readonly version: number | undefined;
}

/** How a run ended, as far as run requests care. */
export type RunEnd = "ran" | "held" | "interrupted";

export interface RunRequests {
  before(run: QueuedRun): Promise<RunPlan>;
  after(run: QueuedRun, plan: RunPlan, end: RunEnd): Promise<void>;
  /** The waiting request of each job, as last read (dashboard). */
  waiting(job: string): RunRequest | undefined;
  start(): void;
  stop(): void;
}

/**
 * Deliveries that reach a worker while another worker holds their job's lease are not lost: the
 * skipped run records a run request in the state (coalesced per job, durable). The holder, when
 * its run ends, and every worker, every `pollMs`, find it and run the job once more; the run
 * settles the request version it read before it began, so a delivery recorded during that run
 * leaves the request waiting for one more run. `trigger` asks the local queue for a deferred run.
 */
export function createRunRequests(o: {
  readonly jobs: ReadonlySet<string>;
  readState<T>(fn: (state: StateStore) => Promise<T>): Promise<T>;
  writeState<T>(fn: (state: StateStore) => Promise<T>): Promise<T>;
  readonly trigger: (job: string) => void;
  /** A run of the job goes on or waits here: a poll adds nothing. */
  readonly busy: (job: string) => boolean;
  readonly metrics: ServeMetrics;
  readonly log: Logger;
  readonly pollMs?: number | undefined;
}): RunRequests {
  let last = new Map<string, RunRequest>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const read = async (): Promise<Map<string, RunRequest>> => {
    const all = await o.readState((s) => s.runRequests());
    last = new Map(all.filter((r) => o.jobs.has(r.job)).map((r) => [r.job, r]));
    return last;
  };

  const poll = async (): Promise<void> => {
    timer = undefined;
    try {
      for (const job of (await read()).keys()) if (!o.busy(job)) o.trigger(job);
    } catch (e) {
      o.log.warn({ err: String(e) }, "could not read the run requests of other workers");
    }
    if (!stopped) {
      timer = setTimeout(() => void poll(), o.pollMs ?? REQUEST_POLL_MS);
      timer.unref();
    }
  };

  return {
    async before(run) {
      let request: RunRequest | undefined;
      try {
        request = (await read()).get(run.job);
      } catch (e) {
        o.log.warn({ job: run.job, err: String(e) }, "could not read the job's run request");
      }
      const deferredOnly = run.triggers.every((t) => t === "deferred");
      return {
        skip: deferredOnly && request === undefined,
        items: request === undefined ? run.items : undefined,
        version: request?.version,
      };
    },
    async after(run, plan, end) {
      const log = o.log.child({ job: run.job });
      try {
        if (end === "held") {
          const asked = ASKED.find((t) => run.triggers.includes(t));
          if (asked === undefined) return;
          const r = await o.writeState((s) => s.requestRun(run.job, asked));
          o.metrics.runRequest(run.job, "deferred");
          log.info(
            { deliveries: r.deliveries },
            "run requested: the job runs again on the worker holding it, after its current run",
          );
          return;
        }
        if (end === "interrupted") return;
        if (plan.version !== undefined) {
          const version = plan.version;
          const settled = await o.writeState((s) => s.settleRunRequest(run.job, version));
          if (settled !== undefined && settled.deliveries > 1)
            o.metrics.runRequest(run.job, "coalesced", settled.deliveries - 1);
        }
        // A delivery recorded while this run went on: one more run, now.
        if ((await read()).has(run.job)) o.trigger(run.job);
      } catch (e) {
        log.warn({ err: String(e) }, "could not record or settle the job's run request");
      }
    },
    waiting: (job) => last.get(job),
    start() {
      stopped = false;
      void poll();
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
