import { z } from "zod";
import type { ApplyResult } from "../library/apply-job.js";
import type { SavedPlanFile } from "../sync/saved-plan/plan-file.js";
import { RunSummaryJson, runSummaryJson } from "./json-output.js";

const count = z.number().int().min(0);

/**
 * The `--json` line of `apply`: a run's summary (as `migrate` prints it), with the plan's figures.
 * A plan applied already prints the run that applied it, a zero summary and no API use.
 */
export const ApplyJson = RunSummaryJson.extend({
  plan: z
    .object({
      id: z.string(),
      actions: count,
      alreadyApplied: z.boolean(),
      /** Saved actions an earlier, interrupted apply carried out. */
      alreadyDone: count,
      /** Writes a fresh plan makes that the saved one does not hold: left for the next run. */
      outside: count,
    })
    .strict(),
}).strict();
export type ApplyJson = z.infer<typeof ApplyJson>;

export function applyJson(plan: SavedPlanFile, r: ApplyResult): ApplyJson {
  const figures = { id: plan.id, actions: plan.actions.length };
  if (r.kind === "already-applied")
    return {
      runId: r.runId,
      job: plan.job,
      summary: { created: 0, updated: 0, unchanged: 0, conflicts: 0, failed: 0, deleted: 0 },
      apiCalls: {},
      plan: { ...figures, alreadyApplied: true, alreadyDone: plan.actions.length, outside: 0 },
    };
  return {
    ...runSummaryJson(r.run),
    plan: { ...figures, alreadyApplied: false, alreadyDone: r.alreadyDone, outside: r.outside },
  };
}
