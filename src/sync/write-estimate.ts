import { iterationsNeeded } from "./plan/iterations-needed.js";
import type { PlanAction } from "./plan/plan-types.js";
import type { WriteEstimateInput } from "./read/estimate-input.js";

/**
 * The plan's write estimate: what a run will write on each system, for the dry run's report
 * (`estimatedWrites`) and, before apply, for the progress display's forecast of the rate
 * limits' windows (the `write_forecast` event).
 */

/**
 * The writes an action costs on each side (a dry run's API cost), a create on the target
 * without the create itself: the target prices its creates together (`targetCreateWrites`).
 */
function estimateWrites(action: PlanAction, target: string): Record<string, number> {
  switch (action.type) {
    case "skip":
    case "adopt":
      return {};
    case "delete":
      return action.mode === "none"
        ? {}
        : { [action.side === "tinypm" ? "tinypm" : target]: action.comment === undefined ? 1 : 2 };
    case "create": {
      const own = action.toSide === "tinypm" ? 1 : 0;
      const side = action.toSide === "tinypm" ? "tinypm" : target;
      return { [side]: own + action.comments.length + action.timeEntries.length };
    }
    case "update": {
      const t =
        (Object.keys(action.tinypmSet).length > 0 ? 1 : 0) +
        action.commentsToTinypm.length +
        action.timeToTinypm.length;
      const g =
        (Object.keys(action.targetSet).length > 0 || action.targetMetadata !== undefined ? 1 : 0) +
        action.commentsToTarget.length +
        action.timeToTarget.length;
      return { ...(t > 0 ? { tinypm: t } : {}), ...(g > 0 ? { [target]: g } : {}) };
    }
  }
}

/**
 * The writes a whole plan costs per system: each action's writes, the creates on the target as
 * the target prices them (else one write each), and the milestones or sprints the target lacks.
 */
export function estimateRunWrites(
  actions: readonly PlanAction[],
  target: string,
  input: WriteEstimateInput = {},
): Record<string, number> {
  const estimated: Record<string, number> = {};
  const add = (system: string, n: number): void => {
    if (n > 0) estimated[system] = (estimated[system] ?? 0) + n;
  };
  let creates = 0;
  for (const a of actions) {
    for (const [system, n] of Object.entries(estimateWrites(a, target))) add(system, n);
    if (a.type === "create" && a.toSide === "target") creates++;
    add(target, boardWrites(a, input.boardFields));
  }
  add(target, input.targetCreateWrites ?? creates);
  const existing = new Set(input.targetIterations ?? []);
  add(target, [...iterationsNeeded(actions)].filter((name) => !existing.has(name)).length);
  return estimated;
}

/**
 * The board's GraphQL writes of an action (a GitHub Project v2 beside the issues): a create adds
 * the issue to the project and sets its values (two requests: "you cannot add and update an item
 * in the same call"); an update that changes a board field sets them (one request, every value
 * of the item aliased into it). Without a board, none.
 */
export function boardWrites(
  action: PlanAction,
  boardFields: readonly string[] | undefined,
): number {
  if (boardFields === undefined || boardFields.length === 0) return 0;
  if (action.type === "create") return action.toSide === "target" ? 2 : 0;
  if (action.type !== "update") return 0;
  return Object.keys(action.targetSet).some((k) => boardFields.includes(k)) ? 1 : 0;
}
