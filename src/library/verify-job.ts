import type { ResolvedJob } from "../config/load.js";
import { instanceFingerprint } from "../core/identity.js";
import type { VerifyReport } from "../report/verify-types.js";
import type { SyncEvent } from "../sync/events.js";
import { verifyJob } from "../sync/verify/verify.js";
import { nameCredentialVars } from "./credential-vars.js";
import { openJob, type ConfigSession } from "./job-session.js";
import { openState } from "./job-state.js";

/**
 * `verify` of one configured job: the state opened read-only (no lock, no write), both sides
 * read in full, every linked pair compared. Writes nothing to any system or to the state.
 */
export async function verifyResolvedJob(
  session: ConfigSession,
  resolved: ResolvedJob,
  opts: { signal?: AbortSignal | undefined; onEvent?: ((e: SyncEvent) => void) | undefined } = {},
): Promise<VerifyReport> {
  const onEvent = opts.onEvent ?? (() => undefined);
  const state = await openState(session.loaded, true);
  try {
    const job = openJob(session, resolved, onEvent, opts.signal);
    try {
      return await verifyJob({
        job: {
          name: resolved.job.name,
          instance: instanceFingerprint(resolved.tinypm.baseUrl),
          project: String(resolved.job.tinypmProject),
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
      });
    } finally {
      await job.close();
    }
  } catch (error) {
    throw nameCredentialVars(error, resolved);
  } finally {
    await state.close();
  }
}
