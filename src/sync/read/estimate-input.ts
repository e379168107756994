import type { Iteration } from "../../core/model.js";
import type { Tracker } from "../../core/tracker.js";
import type { CompiledMapping } from "../../mapping/compile.js";
import { iterationsNeeded } from "../plan/iterations-needed.js";
import type { StatusOutline } from "../jira-create-estimate.js";
import type { Plan } from "../plan/plan-types.js";

/** What a dry run read of the target besides its items, for the write estimate. */
export interface WriteEstimateInput {
  /**
   * The names of the milestones (GitHub) or sprints (Jira) the target holds already; undefined
   * when not read (every iteration the plan needs is then counted as created).
   */
  readonly targetIterations?: readonly string[] | undefined;
  /** Jira: the site's statuses in order, for the transitions each create makes. Absent: none. */
  readonly statuses?: readonly StatusOutline[] | undefined;
  /** The target fields kept on a board (GitHub Project v2), each item's writes of them a request. */
  readonly boardFields?: readonly string[] | undefined;
}

/**
 * What a dry run reads of the target for its write estimate: the milestones or sprints it holds
 * already (one listing, only when the plan needs an iteration), as tinyPM iteration names, and
 * the site's statuses when the plan creates items there (Jira's transitions). Both reads only
 * sharpen an estimate: one that fails leaves the estimate at its upper bound (every needed
 * iteration counted as new) or without transitions, and never fails the plan.
 */
export async function readEstimateInput(
  target: Tracker,
  mapping: CompiledMapping,
  plan: Plan,
  tinypmIterations: readonly Iteration[],
): Promise<WriteEstimateInput> {
  const needed = iterationsNeeded(plan.actions);
  const creates = plan.actions.some((a) => a.type === "create" && a.toSide === "target");
  const statuses =
    creates && target.statusOutline !== undefined
      ? await target.statusOutline().catch(() => undefined)
      : undefined;
  const boardFields = target.boardFields;
  if (needed.size === 0 || !target.capabilities.iterations)
    return { targetIterations: [], statuses, boardFields };
  const listed = await target.listIterations().catch(() => undefined);
  if (listed === undefined) return { targetIterations: [], statuses, boardFields };
  const onTarget = new Set(listed.map((it) => it.name));
  return {
    statuses,
    boardFields,
    targetIterations: tinypmIterations
      .filter((it) => needed.has(it.name) && onTarget.has(mapping.iterationToTarget(it).name))
      .map((it) => it.name),
  };
}
