import type { Iteration } from "../../core/model.js";
import type { EngineContext } from "../context.js";
import { ensure } from "./ensure.js";
import type { Plan, PlanAction } from "../plan/plan-types.js";
import { eachConcurrently } from "./concurrent.js";

/** The tinyPM iteration names the run ensures on the target before its creates. */
export function iterationsNeeded(actions: readonly PlanAction[]): Set<string> {
  const names = new Set<string>();
  for (const a of actions) {
    if (a.type === "create" && a.toSide === "target" && a.source.iteration)
      names.add(a.source.iteration.name);
    if (a.type === "update" && a.tinypmItem.iteration && a.targetSet.iteration !== undefined)
      names.add(a.tinypmItem.iteration.name);
  }
  return names;
}

/**
 * Makes sure every tinyPM iteration that an item being written refers to exists on the target
 * (as a milestone or sprint), before any item is created: iterations first, then stories, then
 * tasks.
 */
export async function ensureIterations(
  ctx: EngineContext,
  plan: Plan,
  tinypmIterations: readonly Iteration[],
): Promise<void> {
  const names = iterationsNeeded(plan.actions);
  // Each one on its own (one iteration per call): they go at once, the request gate deciding
  // how many requests are in flight.
  const wanted = tinypmIterations.filter((it) => names.has(it.name));
  await eachConcurrently(wanted, async (it) => {
    const draft = ctx.mapping.iterationToTarget(it);
    // The tracker's ensure looks before it creates: after an ambiguous failure it runs again.
    await ensure(ctx, "target", {
      name: `ensure iteration "${it.name}"`,
      create: () => ctx.target.ensureIteration(draft),
    });
  });
}
