import type { WorkItem } from "../../core/model.js";
import type { Tracker } from "../../core/tracker.js";
import type { EngineContext } from "../context.js";
import { ensure } from "./ensure.js";

/**
 * A target whose tasks hang under their story by a second call after the create (GitHub's
 * sub-issues). The core `Tracker` has no such method yet: the GitHub tracker exposes it beside
 * the interface.
 */
interface SubIssueTracker extends Tracker {
  addSubIssue(parent: string, child: string): Promise<void>;
}

function canAttach(tracker: Tracker): tracker is SubIssueTracker {
  return typeof (tracker as Partial<SubIssueTracker>).addSubIssue === "function";
}

/**
 * After a create found again by its marker (an interrupted or ambiguous create), hangs a task
 * under its story when the interruption fell between the two calls of a create. `expected`: the
 * story's target id the create was sent with, when known — a task already under it needs no
 * look at the story's link.
 * @returns the item as it now is
 */
export async function ensureTargetParent(
  ctx: EngineContext,
  found: WorkItem,
  tinypmTask: WorkItem,
  expected?: string,
): Promise<WorkItem> {
  if (tinypmTask.kind !== "task" || tinypmTask.parentId === undefined) return found;
  if (expected !== undefined && found.parentId === expected) return found;
  const parent = await ctx.state.getLinkByTinypm(ctx.job.name, "story", tinypmTask.parentId);
  if (parent === undefined || found.parentId === parent.targetId) return found;
  const tracker = ctx.target;
  if (!canAttach(tracker)) return found;
  await ensure(ctx, "target", {
    name: `attach task ${found.id} to story ${parent.targetId}`,
    create: async () => {
      await tracker.addSubIssue(parent.targetId, found.id);
      return true;
    },
    find: async () =>
      (await tracker.get({ kind: "task", id: found.id }))?.parentId === parent.targetId
        ? true
        : undefined,
  });
  return { ...found, kind: "task", parentId: parent.targetId };
}
