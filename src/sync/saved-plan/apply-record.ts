import type { Checkpoint } from "../../core/tracker.js";
import type { PlanStateIdentity } from "./plan-file.js";

/** The state key (a job checkpoint) recording the saved plan being or last applied. */
export const APPLY_RECORD_KEY = "saved-plan";

/** Which plan an `apply` carried out, in which runs, and whether it finished. */
export interface ApplyRecord {
  readonly planId: string;
  readonly runs: readonly string[];
  readonly done: boolean;
}

export function encodeApplyRecord(r: ApplyRecord): Checkpoint {
  return { planId: r.planId, runs: r.runs.join(","), done: r.done };
}

export function decodeApplyRecord(cp: Checkpoint | undefined): ApplyRecord | undefined {
  if (cp === undefined || typeof cp.planId !== "string" || typeof cp.runs !== "string")
    return undefined;
  return {
    planId: cp.planId,
    runs: cp.runs.split(",").filter((r) => r !== ""),
    done: cp.done === true,
  };
}

/** Where the state stands with a saved plan, from the job's runs since it was made. */
export type StateVerdict =
  | { readonly kind: "fresh" }
  /** An `apply` of this plan began and stopped: carry on. */
  | { readonly kind: "resume" }
  /** This plan was applied in full: nothing to do. */
  | { readonly kind: "done"; readonly runId: string }
  /** The plan was made against another state. */
  | { readonly kind: "other-state"; readonly message: string }
  /** The job ran since the plan was made (other than applying it). */
  | { readonly kind: "moved"; readonly runId: string; readonly mode: string };

/**
 * Compares the state the plan was made against with the state now: `runs` are the job's runs,
 * newest first; those newer than the plan's must all be applies of this plan.
 */
export function stateVerdict(o: {
  planId: string;
  made: PlanStateIdentity;
  runs: readonly { readonly id: string; readonly mode: string }[];
  record: ApplyRecord | undefined;
  /** Whether `runs` may stop short of the job's oldest run (a page of the newest). */
  truncated?: boolean | undefined;
}): StateVerdict {
  const at =
    o.made.lastRunId === null ? o.runs.length : o.runs.findIndex((r) => r.id === o.made.lastRunId);
  const oldest = o.runs.at(-1);
  if (at < 0 && o.truncated === true && oldest !== undefined)
    return { kind: "moved", runId: oldest.id, mode: oldest.mode };
  if (at < 0)
    return {
      kind: "other-state",
      message: `its last run of the job (${o.made.lastRunId ?? ""}) is not in this state`,
    };
  const newer = o.runs.slice(0, at);
  if (newer.length === 0) return { kind: "fresh" };
  const mine = o.record?.planId === o.planId ? new Set(o.record.runs) : new Set<string>();
  const foreign = newer.find((r) => !mine.has(r.id));
  if (foreign !== undefined) return { kind: "moved", runId: foreign.id, mode: foreign.mode };
  const [latest] = newer;
  return o.record?.done === true && latest !== undefined
    ? { kind: "done", runId: latest.id }
    : { kind: "resume" };
}
