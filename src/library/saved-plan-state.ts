import type { StateStore } from "../state/store.js";
import {
  APPLY_RECORD_KEY,
  decodeApplyRecord,
  stateVerdict,
  type ApplyRecord,
  type StateVerdict,
} from "../sync/saved-plan/apply-record.js";
import type { PlanStateIdentity, SavedPlanFile } from "../sync/saved-plan/plan-file.js";

/** How many of the job's newest runs `apply` looks through for the one its plan was made after. */
const RUNS_LOOKED_AT = 500;

/** The state a plan is made against: its location, the job's newest run and its links. */
export async function planStateIdentity(
  state: StateStore,
  job: string,
): Promise<PlanStateIdentity> {
  const [last] = await state.runs({ job, limit: 1 });
  return {
    location: state.location,
    lastRunId: last?.id ?? null,
    links: await state.countLinks(job),
  };
}

/** Where the state stands with a saved plan, and its record of the plan's earlier applies. */
export async function planStateVerdict(
  state: StateStore,
  plan: SavedPlanFile,
): Promise<{ verdict: StateVerdict; record: ApplyRecord | undefined }> {
  const runs = await state.runs({ job: plan.job, limit: RUNS_LOOKED_AT });
  const stored = decodeApplyRecord(await state.getCheckpoint(plan.job, APPLY_RECORD_KEY));
  const record = stored?.planId === plan.id ? stored : undefined;
  const verdict = stateVerdict({
    planId: plan.id,
    made: plan.state,
    runs,
    record,
    truncated: runs.length >= RUNS_LOOKED_AT,
  });
  return { verdict, record };
}
