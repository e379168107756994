import type { Iteration } from "../../core/model.js";
import type { EngineContext } from "../context.js";
import { ensure } from "./ensure.js";
import type { Plan } from "../plan/plan-types.js";
import { iterationsNeeded } from "../plan/iterations-needed.js";
import { eachConcurrently } from "./concurrent.js";

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
