import type { WorkItem } from "../../core/model.js";
import type { Tracker } from "../../core/tracker.js";
import type { PendingWrite } from "../../state/store.js";
import type { EngineContext } from "../context.js";
import { pendingWriteOf } from "../plan/pending-writes.js";
import type { UpdateAction } from "../plan/plan-types.js";
import { targetSnapshot, tinypmSnapshot } from "../plan/snapshot.js";

/**
 * Records, before an update sends anything, the field values it is about to write on each side
 * (what the base update after the writes will also take in). A run stopped between a write and
 * that base update leaves them in the state; the next plan tells from them whether the write
 * landed, never did, or may have been undone by a person (pending-writes.ts). The records of
 * an earlier interrupted run stay in front until a base update clears them all. Each record's
 * start is on its side's clock (`Tracker.serverNow`), the clock of the change times it is
 * compared with; the host's when the side tells none.
 */
export async function recordPendingWrites(ctx: EngineContext, a: UpdateAction): Promise<void> {
  // On each side's own clock where it tells it: the side's change times are compared with it.
  const startedOn = (side: Tracker): string => (side.serverNow?.() ?? ctx.now()).toISOString();
  const names = ctx.mapping.fieldNames(a.kind);
  const writes: PendingWrite[] = [];
  if (Object.keys(a.tinypmSet).length > 0) {
    const after: WorkItem = { ...a.tinypmItem, ...a.tinypmSet };
    const w = pendingWriteOf({
      side: "tinypm",
      before: tinypmSnapshot(ctx.mapping, a.tinypmItem),
      after: tinypmSnapshot(ctx.mapping, after),
      other: targetSnapshot(ctx.mapping, a.targetItem),
      names,
      item: a.tinypmItem,
      startedAt: startedOn(ctx.tinypm),
    });
    if (w !== undefined) writes.push(w);
  }
  if (Object.keys(a.targetSet).length > 0 || a.targetMetadata !== undefined) {
    const after: WorkItem = {
      ...a.targetItem,
      ...a.targetSet,
      ...("description" in a.targetSet && { richDescription: undefined }),
      metadata: a.targetMetadata ?? a.targetItem.metadata,
    };
    const w = pendingWriteOf({
      side: "target",
      before: targetSnapshot(ctx.mapping, a.targetItem),
      after: targetSnapshot(ctx.mapping, after),
      other: tinypmSnapshot(ctx.mapping, a.tinypmItem),
      names,
      item: a.targetItem,
      startedAt: startedOn(ctx.target),
    });
    if (w !== undefined) writes.push(w);
  }
  if (writes.length === 0) return;
  const earlier = a.link.pendingWrites ?? [];
  await ctx.state.recordPendingWrites(ctx.job.name, a.kind, a.link.tinypmId, [
    ...earlier,
    ...writes,
  ]);
}
