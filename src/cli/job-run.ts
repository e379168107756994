import { runResolvedJob } from "../library/run-job.js";
import type { ResolvedJob } from "../config/load.js";
import type { RunMode, RunReport } from "../sync/engine.js";
import type { GateEvent } from "../core/request-gate.js";
import type { SyncEvent } from "../sync/events.js";
import type { CliContext } from "./context.js";
import { writeForecaster } from "./plan-estimate.js";
import { createProgress } from "./progress.js";
import { retryBursts, type RetryBursts } from "./retry-bursts.js";
import { waitEndLine, waitLine } from "./wait-words.js";
import type { ConfigSession } from "./session.js";
import { systemLabel } from "../core/system-label.js";

/**
 * Runs one configured job (src/library/run-job.ts) and shows it: per-item events in the log, progress
 * on a terminal.
 */
export async function runConfiguredJob(
  ctx: CliContext,
  session: ConfigSession,
  resolved: ResolvedJob,
  opts: {
    mode: RunMode;
    dryRun: boolean;
    repairMarkers?: boolean | undefined;
    /** Let the run delete or close more than the job's `maxDeletes` (`--allow-deletes`). */
    allowDeletes?: boolean | undefined;
    fullScan?: boolean | undefined;
    /** Syncs: only these target items and their tinyPM counterparts (a webhook's run). */
    targetItems?: readonly string[] | undefined;
    /** Wait out any limit instead of stopping when a wait exceeds the budget (`serve` too). */
    waitForLimits?: boolean | undefined;
    /** Also told every event of the run (`serve`: metrics). */
    onEvent?: ((e: SyncEvent) => void) | undefined;
    /** Told every request gate event (`serve`: request and wait metrics). */
    onGateEvent?: ((e: GateEvent) => void) | undefined;
    /** What the caller prints of the report (run-report.ts `reportDetail`). */
    report?: "full" | "summary" | undefined;
  },
): Promise<RunReport> {
  return runConfiguredEvents(
    ctx,
    session,
    resolved,
    (onEvent) =>
      runResolvedJob(session, resolved, {
        ...opts,
        signal: ctx.signal,
        beforeForcedExit: ctx.beforeForcedExit,
        onEvent,
      }),
    opts.onEvent,
  );
}

/**
 * Runs `work` (a run, or `apply`'s runs) with the job's events shown: per-item events in the
 * log, progress on a terminal.
 */
export async function runConfiguredEvents<T>(
  ctx: CliContext,
  session: ConfigSession,
  resolved: ResolvedJob,
  work: (onEvent: (e: SyncEvent) => void) => Promise<T>,
  also?: (e: SyncEvent) => void,
): Promise<T> {
  const log = session.logger.child({ job: resolved.job.name });
  const progress = createProgress(
    ctx,
    (state, line) => {
      log.info({ progress: state }, `progress: ${line}`);
    },
    undefined,
    writeForecaster(resolved),
  );
  const bursts = retryBursts();
  try {
    return await work((e: SyncEvent): void => {
      progress.event(e);
      logEvent(log, e, bursts);
      also?.(e);
    });
  } finally {
    progress.done();
  }
}

/**
 * One log line per event: warnings for what people must know, debug for every item; with
 * `bursts`, one warning per burst of the same retry (retry-bursts.ts), the rest at debug.
 */
export function logEvent(
  log: ConfigSession["logger"],
  e: SyncEvent,
  bursts: RetryBursts = retryBursts(),
): void {
  switch (e.type) {
    case "failed":
      log.warn({ kind: e.kind, title: e.title, code: e.code }, `parked: ${e.message}`);
      return;
    case "wait_start":
      log.info(
        {
          system: e.system,
          reason: e.reason,
          until: new Date(e.until).toISOString(),
          operation: e.operation,
        },
        waitLine(e, Date.now()),
      );
      return;
    case "wait_end":
      log.info(
        { system: e.system, waitedMs: e.waitedMs },
        waitEndLine(e.system, undefined, e.waitedMs),
      );
      return;
    case "retry": {
      const first = bursts.first(e, Date.now());
      (first ? log.warn.bind(log) : log.debug.bind(log))(
        {
          system: e.system,
          operation: e.operation,
          attempt: e.attempt,
          delayMs: e.delayMs,
          code: e.code,
          reason: e.reason,
        },
        `retrying ${e.operation ?? "a request"} in ${e.delayMs} ms after attempt ${e.attempt}: [${e.code}] ${e.reason ?? ""}${first ? " (other requests failing the same way now are retried without a line each)" : ""}`.trimEnd(),
      );
      return;
    }
    case "conflict":
      log.warn(
        { kind: e.kind, title: e.title, fields: e.conflicts.map((c) => c.field) },
        "conflict",
      );
      return;
    case "assignees_unmapped":
      log.warn({ items: e.items, policy: e.policy }, e.message);
      return;
    case "marker_rewritten":
      log.debug(
        { kind: e.kind, id: e.id, fields: e.fields },
        "marker written again: the target holds values of its own",
      );
      return;
    case "container_created":
      log.debug({ kind: e.kind, id: e.id, name: e.name }, `${e.kind} created`);
      return;
    case "checkpoint_saved":
      log.info({ system: e.system }, "checkpoint saved");
      return;
    case "checkpoint_skipped":
      log.warn(
        { system: e.system, reason: e.reason },
        `no checkpoint after the migration (${e.reason}): the first sync reads every ${systemLabel(e.system)} issue again`,
      );
      return;
    case "created":
      log.debug(
        { kind: e.kind, title: e.title, side: e.side, id: e.id, sourceId: e.sourceId },
        "created",
      );
      return;
    case "adopted":
      log.debug(
        { kind: e.kind, title: e.title, tinypmId: e.tinypmId, targetId: e.targetId },
        "adopted",
      );
      return;
    case "updated": {
      const fields = e.changes.map((c) => `${c.field} → ${c.toSide}`);
      log.debug(
        { kind: e.kind, title: e.title, tinypmId: e.tinypmId, targetId: e.targetId, fields },
        "updated",
      );
      return;
    }
    case "deleted":
      log.debug({ kind: e.kind, title: e.title, side: e.side, how: e.mode }, "deleted");
      return;
    case "skipped":
      log.trace({ kind: e.kind, title: e.title, reason: e.reason }, "skipped");
      return;
    case "phase":
      log.debug({ phase: e.phase }, e.phase);
      return;
    case "progress":
    case "write_forecast":
    case "request":
    case "read_progress":
      return;
  }
}
