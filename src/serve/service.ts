import { InterruptedError, StateError, SyncError } from "../core/errors.js";
import type { GateEvent } from "../core/request-gate.js";
import type { Logger } from "../log/logger.js";
import type { ConflictRecord, StateStore } from "../state/store.js";
import type { RunReport } from "../sync/engine.js";
import { finishedOutcome } from "../sync/outcome.js";
import { createServeMetrics, type ServeMetrics } from "./metrics.js";
import { createReadiness, type ReadinessTracker } from "./readiness.js";
import { createOwnWrites } from "./own-writes.js";
import { runActivity, type RunActivity } from "./run-activity.js";
import type { SyncEvent } from "../sync/events.js";
import { createRunQueue, type QueuedRun, type RunQueue } from "./run-queue.js";
import { createRunRequests, type RunEnd } from "./run-requests.js";
import { DEFAULT_SCHEDULE, startSchedule, type ScheduledJob } from "./schedule.js";
import type { ItemSelection, RunTrigger, ServeJob, SystemCheck } from "./types.js";

/** How many finished runs (with their full report) the service keeps per job, for the dashboard. */
export const REPORTS_KEPT_PER_JOB = 5;
/** Time between readiness probes while a system has not answered. */
const PROBE_RETRY_MS = 5_000;
/** Time between checks that the state answers (readiness follows it for as long as we serve). */
export const STATE_CHECK_MS = 2_000;
/** A state check that takes longer counts as the state not answering. */
const STATE_CHECK_TIMEOUT_MS = 5_000;

/** What the service needs from the outside (the CLI wires the real job-run code in). */
export interface ServiceDeps {
  readonly jobs: readonly ServeJob[];
  /**
   * Runs one job exactly as `sync` does; `items` limits it to those target items. `onGateEvent`
   * is told every request gate event of the run (requests and waits, for the metrics).
   */
  execute(
    job: string,
    items: ItemSelection,
    onGateEvent: (e: GateEvent) => void,
    /** Told every event of the run (the dashboard's view of what it does now). */
    onEvent?: (e: SyncEvent) => void,
  ): Promise<RunReport>;
  /** Probes every system of every job (readiness); its requests go to `onGateEvent`. */
  probe(onGateEvent: (e: GateEvent) => void): Promise<readonly SystemCheck[]>;
  /** Opens the state read-only, runs `fn`, closes it. */
  readState<T>(fn: (state: StateStore) => Promise<T>): Promise<T>;
  /** Opens the state for writing (between runs), runs `fn`, closes it. */
  writeState<T>(fn: (state: StateStore) => Promise<T>): Promise<T>;
  readonly logger: Logger;
  /** Time between state checks for readiness. @default STATE_CHECK_MS */
  readonly stateCheckMs?: number | undefined;
  /** Time between looks for run requests other workers recorded. @default REQUEST_POLL_MS */
  readonly requestPollMs?: number | undefined;
}

/** A finished run as the service remembers it. */
export interface FinishedRun {
  readonly job: string;
  readonly runId: string | undefined;
  readonly outcome: "ok" | "partial" | "failed" | "interrupted";
  readonly triggers: readonly RunTrigger[];
  /** Target items the run was limited to (webhooks), or undefined for the whole job. */
  readonly items: readonly string[] | undefined;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly report: RunReport | undefined;
  /** The error of a failed run, in words (no secrets: errors are redacted by the config). */
  readonly error: string | undefined;
}

export interface Service {
  readonly jobs: readonly ServeJob[];
  readonly metrics: ServeMetrics;
  readonly readiness: ReadinessTracker;
  /**
   * A verified webhook delivery for `job`: the time each named item last changed, as it says
   * (a webhook run leaves out the items whose delivery echoes the service's own write).
   */
  noteDelivery(job: string, stamps: ReadonlyMap<string, string>): void;
  /** Asks for a run of a job (coalesced with any waiting one). Unknown job → false. */
  trigger(job: string, trigger: RunTrigger, items?: ItemSelection): boolean;
  /** Queue and schedule of a job, for the dashboard. */
  jobState(job: string): {
    running: QueuedRun | undefined;
    pending: QueuedRun | undefined;
    nextRun: Date | undefined;
    /** The worker that held the job's lease when this process last tried to run it, if any. */
    runningOn: string | undefined;
    /** Deliveries waiting in the state for a follow-up run (another worker held the job). */
    requested: { deliveries: number; since: string } | undefined;
    /** What the job's running run does now, in words (`reading tinyPM · 12 requests`). */
    activity: string | undefined;
  };
  /** Finished runs of this process, newest first (all jobs, or one). */
  finished(job?: string): readonly FinishedRun[];
  /** A finished run by its id, with its report while it is kept. */
  findRun(runId: string): FinishedRun | undefined;
  readState<T>(fn: (state: StateStore) => Promise<T>): Promise<T>;
  /** Resolves a conflict between runs (the state has one writer); the next run applies it. */
  /** Refused (`conflict_resolved`) when resolved already with the other side, unless `reopen`. */
  resolveConflict(id: number, take: "tinypm" | "target", reopen?: boolean): Promise<ConflictRecord>;
  /** Resolves once no run is going on or waiting (tests, benchmarks). */
  idle(): Promise<void>;
  /** Starts probes, schedules, and a first run of every job. */
  start(): void;
  /** Stops schedules and probes, drops waiting runs, waits for the current one. */
  stop(): Promise<void>;
}

export function createService(deps: ServiceDeps): Service {
  const log = deps.logger;
  const names = new Set(deps.jobs.map((j) => j.name));
  const metrics = createServeMetrics({
    figures: () =>
      deps.readState(async (state) => {
        const figures = [];
        for (const j of deps.jobs) {
          figures.push({
            job: j.name,
            items: await state.countLinksByKind(j.name),
            conflictsOpen: (await state.conflicts({ job: j.name, status: "open" })).length,
            failuresParked: (await state.failures(j.name)).length,
          });
        }
        return figures;
      }),
  });
  const readiness = createReadiness(
    deps.jobs.map((j) => ({ job: j.name, systems: ["tinypm", j.target.type] })),
  );
  const history: FinishedRun[] = [];
  // Jobs whose lease another worker held at this process's last attempt: "host pid N".
  const heldElsewhere = new Map<string, string>();
  const schedules = new Map<string, ScheduledJob>();
  let probeTimer: NodeJS.Timeout | undefined;
  let stateTimer: NodeJS.Timeout | undefined;
  let stopping = false;
  // Read through a function: a flag set by stop() while a probe awaits.
  const isStopping = (): boolean => stopping;

  const remember = (run: FinishedRun): void => {
    history.unshift(run);
    // Keep the last few reports of each job; older entries keep their summary only.
    let kept = 0;
    for (let i = 0; i < history.length; i++) {
      const h = history[i];
      if (h?.job !== run.job || h.report === undefined) continue;
      kept++;
      if (kept > REPORTS_KEPT_PER_JOB) history[i] = { ...h, report: undefined };
    }
    const cap = deps.jobs.length * 50;
    if (history.length > cap) history.length = cap;
  };

  const execute = async (queued: QueuedRun): Promise<void> => {
    const plan = await requests.before(queued);
    if (plan.skip) return;
    let items = plan.items;
    // A run asked for by webhooks alone reads only what they named; deliveries that echo this
    // service's own writes ask for nothing (own-writes.ts).
    if (items !== undefined && queued.triggers.every((t) => t === "webhook")) {
      const { echoes, rest } = ownWrites.split(queued.job, items);
      if (echoes.length > 0)
        log
          .child({ job: queued.job })
          .info(
            { items: echoes },
            `webhook deliveries for ${echoes.length === 1 ? "item" : "items"} ${echoes.join(", ")} echo this service's own writes: not run for`,
          );
      if (rest.size === 0 && plan.version === undefined) return;
      items = rest.size === 0 ? items : rest;
    } else if (items === undefined) ownWrites.forget(queued.job);
    const run: QueuedRun = { ...queued, items };
    let end: RunEnd = "ran";
    try {
      end = await executePlanned(run);
    } finally {
      await requests.after(run, plan, end);
    }
  };

  const executePlanned = async (run: QueuedRun): Promise<RunEnd> => {
    const started = Date.now();
    const jobLog = log.child({ job: run.job });
    jobLog.info(
      { triggers: run.triggers, items: run.items === undefined ? "all" : [...run.items] },
      "run starting",
    );
    let report: RunReport | undefined;
    let outcome: FinishedRun["outcome"];
    let error: string | undefined;
    try {
      const activity = runActivity();
      activities.set(run.job, activity);
      report = await deps.execute(run.job, run.items, metrics.gateListener(), (e) => {
        activity.event(e);
      });
      heldElsewhere.delete(run.job);
      readiness.stateOpened();
      outcome = stopping ? "interrupted" : finishedOutcome(report.summary);
    } catch (e) {
      const holder = leaseHolder(e, run.job);
      if (holder !== undefined) {
        // Another worker runs the job: nothing was done here; its run is that worker's.
        heldElsewhere.set(run.job, holder);
        jobLog.info({ runningOn: holder }, "run skipped: the job is running on another worker");
        return "held";
      }
      outcome = e instanceof InterruptedError || stopping ? "interrupted" : "failed";
      error = e instanceof SyncError ? `[${e.code}] ${e.message}` : String(e);
      // The state did not answer the run, or the run lost its job's lease: not ready until a
      // state check reaches the state again.
      if (e instanceof StateError && e.code === "state_unavailable")
        readiness.stateFailed(`job ${run.job}: ${e.message}`);
      if (outcome === "failed") jobLog.error({ err: error }, "run failed");
    }
    if (report !== undefined) ownWrites.noteRun(run.job, started, Date.now(), report.events);
    activities.delete(run.job);
    const seconds = (Date.now() - started) / 1000;
    metrics.runFinished(run.job, outcome, seconds);
    remember({
      job: run.job,
      runId: report?.runId,
      outcome,
      triggers: run.triggers,
      items: run.items === undefined ? undefined : [...run.items],
      startedAt: new Date(started).toISOString(),
      finishedAt: new Date().toISOString(),
      report,
      error,
    });
    jobLog.info({ outcome, seconds, summary: report?.summary }, "run finished");
    // An interrupted run (stopping, or its lease lost) covered nothing for sure.
    return outcome === "interrupted" || error?.includes("[state_unavailable]") === true
      ? "interrupted"
      : "ran";
  };
  const ownWrites = createOwnWrites();
  /** What each running run does now (dashboard). */
  const activities = new Map<string, RunActivity>();
  const queue: RunQueue = createRunQueue({ execute });
  const requests = createRunRequests({
    jobs: names,
    readState: (fn) => deps.readState(fn),
    writeState: (fn) => deps.writeState(fn),
    trigger: (job) => {
      if (!stopping) queue.trigger(job, "deferred");
    },
    busy: (job) => {
      const q = queue.status(job);
      return q.running !== undefined || q.pending !== undefined;
    },
    metrics,
    log,
    pollMs: deps.requestPollMs,
  });

  const checkState = async (): Promise<void> => {
    stateTimer = undefined;
    if (stopping) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        deps.readState(() => Promise.resolve()),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            reject(new Error(`it did not answer within ${STATE_CHECK_TIMEOUT_MS / 1000} s`));
          }, STATE_CHECK_TIMEOUT_MS);
        }),
      ]);
      readiness.stateOpened();
    } catch (e) {
      readiness.stateFailed(e instanceof Error ? e.message : String(e));
    } finally {
      clearTimeout(timer);
    }
    if (!isStopping()) {
      stateTimer = setTimeout(() => void checkState(), deps.stateCheckMs ?? STATE_CHECK_MS);
      stateTimer.unref();
    }
  };

  const probe = async (): Promise<void> => {
    probeTimer = undefined;
    if (stopping) return;
    try {
      readiness.record(await deps.probe(metrics.gateListener()));
    } catch (e) {
      log.warn({ err: String(e) }, "readiness probe failed");
    }
    if (readiness.missing().length > 0 && !isStopping()) {
      probeTimer = setTimeout(() => void probe(), PROBE_RETRY_MS);
      probeTimer.unref();
    }
  };

  return {
    jobs: deps.jobs,
    metrics,
    readiness,
    noteDelivery(job, stamps) {
      if (names.has(job)) ownWrites.noteDelivery(job, stamps);
    },
    trigger(job, trigger, items) {
      if (!names.has(job) || stopping) return false;
      queue.trigger(job, trigger, items);
      return true;
    },
    jobState(job) {
      return {
        ...queue.status(job),
        nextRun: schedules.get(job)?.nextRun(),
        runningOn: heldElsewhere.get(job),
        activity: activities.get(job)?.text(),
        requested: ((r) =>
          r === undefined ? undefined : { deliveries: r.deliveries, since: r.firstAt })(
          requests.waiting(job),
        ),
      };
    },
    finished(job) {
      return job === undefined ? [...history] : history.filter((h) => h.job === job);
    },
    findRun(runId) {
      return history.find((h) => h.runId === runId);
    },
    readState: (fn) => deps.readState(fn),
    resolveConflict(id, take, reopen) {
      return queue.exclusive(() =>
        deps.writeState((state) => state.resolveConflict(id, take, reopen === true)),
      );
    },
    idle: () => queue.idle(),
    start() {
      void checkState();
      requests.start();
      void probe();
      for (const job of deps.jobs) {
        const schedule = job.schedule ?? DEFAULT_SCHEDULE;
        schedules.set(
          job.name,
          startSchedule(schedule, () => {
            queue.trigger(job.name, "schedule");
          }),
        );
        queue.trigger(job.name, "startup");
      }
    },
    async stop() {
      stopping = true;
      if (probeTimer !== undefined) clearTimeout(probeTimer);
      if (stateTimer !== undefined) clearTimeout(stateTimer);
      requests.stop();
      for (const s of schedules.values()) s.stop();
      await queue.stop();
    },
  };
}

/** The worker named by a refused lease claim of `job` ("host pid N"), or undefined. */
function leaseHolder(error: unknown, job: string): string | undefined {
  if (!(error instanceof StateError) || error.code !== "state_locked") return undefined;
  const d = error.details;
  if (d.job !== job || typeof d.pid !== "number") return undefined;
  return `${typeof d.host === "string" ? d.host : "?"} pid ${String(d.pid)}`;
}
