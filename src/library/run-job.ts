import type { ResolvedJob } from "../config/load.js";
import { targetLocation } from "../core/target-location.js";
import { instanceFingerprint } from "../core/identity.js";
import { createWriteFence } from "../core/write-fence.js";
import { runEngine, type RunMode, type RunReport } from "../sync/engine.js";
import type { GateEvent } from "../core/request-gate.js";
import type { SyncEvent } from "../sync/events.js";
import { nameCredentialVars } from "./credential-vars.js";
import { openJob, type ConfigSession } from "./job-session.js";
import { openState } from "./job-state.js";
import type { SavedPlanRun } from "../sync/saved-plan/saved-plan-run.js";

/** How one configured job is run (the CLI's `plan`, `migrate` and `sync`, and the library). */
export interface JobRunOptions {
  readonly mode: RunMode;
  /** Plan only: nothing is written to any system or to the state (opened read-only). */
  readonly dryRun: boolean;
  readonly repairMarkers?: boolean | undefined;
  /** Let the run delete or close more linked items than the job's `maxDeletes` (`--allow-deletes`). */
  readonly allowDeletes?: boolean | undefined;
  /** Syncs: read all of tinyPM and the whole target this run (`sync --full`). */
  readonly fullScan?: boolean | undefined;
  /** Syncs: only these target items and their tinyPM counterparts (a webhook's run). */
  readonly targetItems?: readonly string[] | undefined;
  /** Wait out any limit instead of stopping when a wait exceeds the budget (`--wait-for-limits`). */
  readonly waitForLimits?: boolean | undefined;
  /** Every run event, as it happens (progress, items, waits). */
  readonly onEvent?: ((e: SyncEvent) => void) | undefined;
  /** Every request gate event of the run: each request with its status, each wait (`serve`). */
  readonly onGateEvent?: ((e: GateEvent) => void) | undefined;
  /** Aborting it stops the run between requests; the state stays consistent. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Registers what to do if the process must exit before the run winds down (the run journalled
   * as interrupted, the state released); returns the unregistering function (the CLI's).
   */
  readonly beforeForcedExit?: ((fn: () => void) => () => void) | undefined;
  /** `apply`: carry out only this saved plan's actions (src/sync/saved-plan). */
  readonly savedPlan?: SavedPlanRun | undefined;
  /**
   * What the caller reads of the report: `summary` lets the run go of each applied action
   * (src/sync/run-options.ts `report`). @default "full"
   */
  readonly report?: "full" | "summary" | undefined;
}

/**
 * Runs one resolved job: state (read-only for dry runs), trackers, lanes, the engine; always
 * releases what it opened. Auth errors name the environment variables the credentials came from.
 * Prints nothing: events go to `onEvent`, log lines to the session's logger.
 */
export async function runResolvedJob(
  session: ConfigSession,
  resolved: ResolvedJob,
  opts: JobRunOptions,
): Promise<RunReport> {
  const log = session.logger.child({ job: resolved.job.name });
  const onEvent = opts.onEvent ?? (() => undefined);
  const state = await openState(session.loaded, opts.dryRun);
  // A signal the run cannot wind down from in time still leaves it journalled as interrupted.
  const forget = opts.beforeForcedExit?.(() => {
    state.stopNow(!opts.dryRun);
  });
  // Tied to the job's lease once the engine claims it: no write of the run once it is lost.
  const fence = createWriteFence();
  try {
    const job = openJob(session, resolved, onEvent, opts.signal, {
      fence,
      waitForLimits: opts.waitForLimits,
      onGateEvent: opts.onGateEvent,
      // PostgreSQL: other workers may use the same tokens; their writes are booked together.
      budget: state.budget,
    });
    log.info({ mode: opts.mode, dryRun: opts.dryRun, target: resolved.target.name }, "run started");
    try {
      const run = await runEngine({
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
          maxDeletes: resolved.job.maxDeletes,
          allowDeletes: opts.allowDeletes === true,
        },
        targetSystem: job.targetSystem,
        targetLocation: targetLocation(resolved.target),
        tinypm: job.tinypm,
        target: job.target,
        mappingSpec: job.mappingSpec,
        userMap: job.userMap,
        unmappedUsers: resolved.job.unmappedUsers,
        state,
        leaseWaitMs: session.loaded.config.state.waitForLockMs,
        fence,
        confirmGroup: { maxWaitMs: session.loaded.state.confirmWaitMs },
        lanes: job.lanes,
        emit: onEvent,
        fullScanEvery: resolved.tinypm.fullScanEvery,
        fullScan: opts.fullScan,
        targetItems: opts.targetItems,
        savedPlan: opts.savedPlan,
        report: opts.report,
      });
      log.info({ runId: run.runId, summary: run.summary }, "run finished");
      return run;
    } finally {
      await job.close();
    }
  } catch (error) {
    throw nameCredentialVars(error, resolved);
  } finally {
    forget?.();
    await state.close();
  }
}
