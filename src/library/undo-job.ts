import type { ResolvedJob } from "../config/load.js";
import type { SyncEvent } from "../sync/events.js";
import { undoRun } from "../sync/undo/undo.js";
import type { UndoReport } from "../sync/undo/undo-types.js";
import { compileJobMapping } from "../sync/verify/job-mapping.js";
import { nameCredentialVars } from "./credential-vars.js";
import { openJob, type ConfigSession } from "./job-session.js";
import { openState } from "./job-state.js";

/**
 * `undo` of one run of a configured job. A real undo holds the job's lease (no run of the job
 * meanwhile); a dry run opens the state read-only and writes nothing anywhere.
 */
export async function undoResolvedJob(
  session: ConfigSession,
  resolved: ResolvedJob,
  opts: {
    runId: string;
    dryRun: boolean;
    signal?: AbortSignal | undefined;
    onEvent?: ((e: SyncEvent) => void) | undefined;
  },
): Promise<UndoReport> {
  const state = await openState(session.loaded, opts.dryRun);
  const name = resolved.job.name;
  try {
    const lease = opts.dryRun
      ? undefined
      : await state.claimJob(name, { waitMs: session.loaded.config.state.waitForLockMs });
    try {
      const job = openJob(session, resolved, opts.onEvent ?? (() => undefined), opts.signal);
      try {
        const mapping = await compileJobMapping({
          ...job,
          unmappedUsers: resolved.job.unmappedUsers,
        });
        return await undoRun({
          job: name,
          runId: opts.runId,
          dryRun: opts.dryRun,
          targetSystem: job.targetSystem,
          tinypm: job.tinypm,
          target: job.target,
          mapping,
          state,
          lanes: job.lanes,
        });
      } finally {
        await job.close();
      }
    } finally {
      await lease?.release();
    }
  } catch (error) {
    throw nameCredentialVars(error, resolved);
  } finally {
    await state.close();
  }
}
