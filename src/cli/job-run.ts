import type { ResolvedJob } from "../config/load.js";
import { instanceFingerprint } from "../core/identity.js";
import { runJob, type RunMode, type RunReport } from "../sync/engine.js";
import type { SyncEvent } from "../sync/events.js";
import type { CliContext } from "./context.js";
import { createProgress } from "./progress.js";
import { nameCredentialVars } from "./secret-hint.js";
import { waitEndLine, waitLine } from "./wait-words.js";
import { openJob, openState, type ConfigSession } from "./session.js";

/**
 * Runs one configured job: state (read-only for dry runs), trackers, lanes, the engine; logs
 * per-item events, shows progress on a terminal, and always releases what it opened.
 */
export async function runConfiguredJob(
  ctx: CliContext,
  session: ConfigSession,
  resolved: ResolvedJob,
  opts: {
    mode: RunMode;
    dryRun: boolean;
    repairMarkers?: boolean | undefined;
    fullScan?: boolean | undefined;
    /** Wait out any limit instead of stopping when a wait exceeds the budget (`serve` too). */
    waitForLimits?: boolean | undefined;
    /** Also told every event of the run (`serve`: metrics). */
    onEvent?: ((e: SyncEvent) => void) | undefined;
  },
): Promise<RunReport> {
  const log = session.logger.child({ job: resolved.job.name });
  const progress = createProgress(ctx, (state, line) => {
    log.info({ progress: state }, `progress: ${line}`);
  });
  const onEvent = (e: SyncEvent): void => {
    progress.event(e);
    logEvent(log, e);
    opts.onEvent?.(e);
  };
  const state = openState(session.loaded, opts.dryRun);
  // A signal the run cannot wind down from in time still leaves it journalled as interrupted.
  const forget = ctx.beforeForcedExit?.(() => {
    if (!opts.dryRun) state.interruptOwnRuns();
    state.close();
  });
  log.info({ mode: opts.mode, dryRun: opts.dryRun, target: resolved.target.name }, "run started");
  let job: ReturnType<typeof openJob> | undefined;
  try {
    job = openJob(session, resolved, onEvent, ctx.signal, {
      waitForLimits: opts.waitForLimits,
    });
    const run = await runJob({
      mode: opts.mode,
      dryRun: opts.dryRun,
      job: {
        name: resolved.job.name,
        direction: resolved.job.direction,
        conflicts: resolved.job.conflicts,
        richText: resolved.job.richText,
        onDelete: resolved.job.onDelete,
        instance: instanceFingerprint(resolved.tinypm.baseUrl),
        project: String(resolved.job.tinypmProject),
        repairMarkers: opts.repairMarkers === true,
        importFrom: resolved.job.importFrom,
      },
      targetSystem: job.targetSystem,
      tinypm: job.tinypm,
      target: job.target,
      mappingSpec: job.mappingSpec,
      userMap: job.userMap,
      unmappedUsers: resolved.job.unmappedUsers,
      state,
      lanes: job.lanes,
      emit: onEvent,
      fullScanEvery: resolved.tinypm.fullScanEvery,
      fullScan: opts.fullScan,
    });
    log.info({ runId: run.runId, summary: run.summary }, "run finished");
    return run;
  } catch (error) {
    throw nameCredentialVars(error, resolved);
  } finally {
    progress.done();
    forget?.();
    state.close();
    await job?.close();
  }
}

/** One log line per event: warnings for what people must know, debug for every item. */
export function logEvent(log: ConfigSession["logger"], e: SyncEvent): void {
  switch (e.type) {
    case "failed":
      log.warn({ kind: e.kind, title: e.title, code: e.code }, `parked: ${e.message}`);
      return;
    case "rate_limited":
      log.warn(
        { system: e.system, waitMs: e.waitMs, operation: e.operation },
        "rate limited: waiting",
      );
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
    case "retry":
      log.warn(
        {
          system: e.system,
          operation: e.operation,
          attempt: e.attempt,
          delayMs: e.delayMs,
          code: e.code,
          reason: e.reason,
        },
        `retrying ${e.operation ?? "a request"} in ${e.delayMs} ms after attempt ${e.attempt}: [${e.code}] ${e.reason ?? ""}`.trimEnd(),
      );
      return;
    case "conflict":
      log.warn(
        { kind: e.kind, title: e.title, fields: e.conflicts.map((c) => c.field) },
        "conflict",
      );
      return;
    case "assignees_unmapped":
      log.warn({ items: e.items, policy: e.policy }, e.message);
      return;
    case "checkpoint_saved":
      log.info({ system: e.system }, "checkpoint saved");
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
      return;
  }
}
