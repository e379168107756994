/**
 * What a migration leaves for the first `sync`: the target's change-feed checkpoint just past its
 * own writes (`Tracker.checkpointAfterWrites`), so that the first quiet sync reads only what
 * changed since, like any later one, instead of the whole target again. Only when the migration
 * left nothing a sync must find by reading the target in full: no parked failure or conflict, no
 * person's edit kept for `sync`, no target item skipped for the migration's one-way direction
 * (a sync imports it), no create waiting to be settled.
 */
import { InterruptedError, StateError } from "../core/errors.js";
import type { Checkpoint } from "../core/tracker.js";
import type { RunSummary } from "./events.js";
import type { PlanAction, SkipReason } from "./plan/plan-types.js";
import type { EngineContext } from "./context.js";

/** Skips a later sync plans the same way, whether it reads the item or not. */
const SETTLED_SKIPS: ReadonlySet<SkipReason> = new Set<SkipReason>([
  "unchanged",
  "echo",
  "deleted",
  "filtered",
  "foreign",
]);

function settled(action: PlanAction): boolean {
  switch (action.type) {
    case "create":
    case "adopt":
    case "delete":
      return true;
    case "skip":
      return SETTLED_SKIPS.has(action.reason);
    case "update":
      return (
        !action.conflicts.some((c) => c.resolution === "parked") &&
        (action.keptOnTarget ?? []).length === 0
      );
  }
}

/**
 * Pure: whether a migration's plan leaves nothing only a full target read finds — decided before
 * the apply step, which may let go of the plan's actions as it goes.
 */
export function planLeavesNothing(actions: readonly PlanAction[]): boolean {
  return actions.every(settled);
}

/** Pure: whether the migration's plan and outcome leave nothing only a full target read finds. */
export function leavesNothingForSync(
  planSettles: boolean,
  summary: RunSummary,
  pendingIntents: number,
): boolean {
  return summary.failed === 0 && summary.conflicts === 0 && pendingIntents === 0 && planSettles;
}

/** The checkpoint a finished migration stores for its target, when it may (see above). */
export async function migrationCheckpoint(
  ctx: EngineContext,
  planSettles: boolean,
  summary: RunSummary,
): Promise<Checkpoint | undefined> {
  const after = ctx.target.checkpointAfterWrites?.bind(ctx.target);
  if (after === undefined) return undefined;
  const pending = (await ctx.state.pendingIntents(ctx.job.name)).length;
  if (!leavesNothingForSync(planSettles, summary, pending)) return undefined;
  try {
    return await ctx.lanes.run(ctx.targetSystem, {
      name: `read ${ctx.targetSystem} feed position after the migration`,
      kind: "read",
      // Left without one, the first sync reads everything: said, naming what stood in the way.
      run: (signal) =>
        after({
          signal,
          onNone: (why) => {
            ctx.emit({ type: "checkpoint_skipped", system: ctx.targetSystem, reason: why });
          },
        }),
    });
  } catch (error) {
    // The migration is done and recorded; its checkpoint only spares the first sync a full read.
    // A stop (Ctrl-C) or a lost lease still ends the run as such; anything else the target
    // answers here (down after the retries, a limit, an unreadable listing) leaves no checkpoint:
    // the first sync reads everything, as it would without one.
    if (error instanceof InterruptedError || error instanceof StateError) throw error;
    // Said, not silent: at 50,000 items the first sync's full read is thousands of requests.
    ctx.emit({
      type: "checkpoint_skipped",
      system: ctx.targetSystem,
      reason: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  }
}
