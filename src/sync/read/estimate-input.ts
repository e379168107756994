import type { Iteration } from "../../core/model.js";
import type { CreateOutline, Tracker } from "../../core/tracker.js";
import type { CompiledMapping } from "../../mapping/compile.js";
import { iterationsNeeded } from "../plan/iterations-needed.js";
import type { Plan } from "../plan/plan-types.js";

/** What a dry run read of the target besides its items, for the write estimate. */
export interface WriteEstimateInput {
  /**
   * The names of the milestones (GitHub) or sprints (Jira) the target holds already; undefined
   * when not read (every iteration the plan needs is then counted as created).
   */
  readonly targetIterations?: readonly string[] | undefined;
  /**
   * The write requests the plan's creates on the target cost as the target makes them (its
   * `createWriteCost`: batching, closing, walking to a status), without their comments and time
   * entries. Absent: one write per create.
   */
  readonly targetCreateWrites?: number | undefined;
  /** The target fields kept on a board (GitHub Project v2), each item's writes of them a request. */
  readonly boardFields?: readonly string[] | undefined;
}

/**
 * What a dry run reads of the target for its write estimate: the milestones or sprints it holds
 * already (one listing, only when the plan needs an iteration), as tinyPM iteration names, and
 * what the plan's creates there cost, as the target answers (Jira reads its statuses for that).
 * Both reads only sharpen an estimate: one that fails leaves the estimate at its upper bound
 * (every needed iteration counted as new) or at one write per create, and never fails the plan.
 */
export async function readEstimateInput(
  target: Tracker,
  mapping: CompiledMapping,
  plan: Plan,
  tinypmIterations: readonly Iteration[],
): Promise<WriteEstimateInput> {
  const needed = iterationsNeeded(plan.actions);
  const creates: CreateOutline[] = [];
  for (const a of plan.actions)
    if (a.type === "create" && a.toSide === "target")
      creates.push({ kind: a.kind, status: a.draft.status });
  const targetCreateWrites =
    creates.length > 0 && target.createWriteCost !== undefined
      ? await target.createWriteCost(creates).catch(() => undefined)
      : undefined;
  const boardFields = target.boardFields;
  if (needed.size === 0 || !target.capabilities.iterations)
    return { targetIterations: [], targetCreateWrites, boardFields };
  const listed = await target.listIterations().catch(() => undefined);
  if (listed === undefined) return { targetIterations: [], targetCreateWrites, boardFields };
  const onTarget = new Set(listed.map((it) => it.name));
  return {
    targetCreateWrites,
    boardFields,
    targetIterations: tinypmIterations
      .filter((it) => needed.has(it.name) && onTarget.has(mapping.iterationToTarget(it).name))
      .map((it) => it.name),
  };
}
