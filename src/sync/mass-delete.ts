import { MassDeleteError } from "../core/errors.js";
import type { SystemName } from "../core/model.js";
import {
  checkDeletes,
  guardStops,
  liveLinks,
  massDeleteWords,
  type DeleteGuard,
} from "./plan/delete-guard.js";
import type { PlanJob } from "./plan/plan-input.js";
import type { LinkView, Plan } from "./plan/plan-types.js";

/**
 * The deletion guard of a plan: how many linked items it deletes or closes on each side against
 * the job's `maxDeletes` (plan/delete-guard.ts). A dry run only reports it; a real run calls
 * {@link assertDeletesAllowed} before its first write.
 */
export function deleteGuardOf(
  job: PlanJob,
  targetSystem: SystemName,
  plan: Plan,
  links: readonly LinkView[],
): RunDeleteGuard {
  const guard = checkDeletes(plan, {
    maxDeletes: job.maxDeletes,
    links: liveLinks(links),
    allow: job.allowDeletes,
  });
  const side = guard.over[0];
  if (side === undefined) return guard;
  return {
    ...guard,
    ...massDeleteWords(guard, { job: job.name, targetSystem, onDelete: job.onDelete, side }),
  };
}

/** The guard of a run, with what a stopped run says when a side is over the limit. */
export interface RunDeleteGuard extends DeleteGuard {
  readonly message?: string | undefined;
  readonly hint?: string | undefined;
}

/** The `mass_delete` error of a guard that stops the run, naming the first side over. */
function massDeleteError(job: PlanJob, guard: RunDeleteGuard): MassDeleteError {
  return new MassDeleteError(guard.message ?? "", {
    hint: guard.hint,
    details: {
      job: job.name,
      side: guard.over[0],
      planned: guard.planned,
      limit: guard.limit,
      links: guard.links,
      maxDeletes: guard.maxDeletes,
    },
  });
}

/** Throws `mass_delete` when the plan deletes or closes too much and the run was not allowed. */
export function assertDeletesAllowed(
  job: PlanJob,
  targetSystem: SystemName,
  plan: Plan,
  links: readonly LinkView[],
): RunDeleteGuard {
  const guard = deleteGuardOf(job, targetSystem, plan, links);
  if (guardStops(guard)) throw massDeleteError(job, guard);
  return guard;
}
