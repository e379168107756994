import type { Plan } from "../plan/plan-types.js";
import type { ApplyRecord } from "./apply-record.js";

/** What the engine is given to carry out a saved plan (`apply`) instead of its own plan. */
export interface SavedPlanRun {
  readonly planId: string;
  /** The state's record of this plan's earlier applies, if it holds one of this plan. */
  readonly record: ApplyRecord | undefined;
  /**
   * The fresh plan cut down to the saved actions that hold; throws `plan_stale` (nothing
   * written yet) when any saved action no longer does.
   */
  readonly restrict: (fresh: Plan) => Plan;
}
