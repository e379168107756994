import { markerOwner } from "../../core/identity.js";
import type { Marker, WorkItem, WorkItemFieldName } from "../../core/model.js";
import type { LinkIdentity } from "../../state/identity-table.js";
import type { EngineContext } from "../context.js";
import { jobMarker } from "../plan/marker.js";
import { targetSnapshot, tinypmSnapshot } from "../plan/snapshot.js";
import { answeredOver } from "./answered.js";
import { rewrite } from "./ensure.js";

/** A target-born item once marked, and the block it carries, for the state to keep. */
export interface MarkedBorn {
  /** The target item as the run read it, with what the marker write changed. */
  readonly item: WorkItem;
  /**
   * The block naming the tinyPM copy, to store with the link (in the same transaction): written
   * now, or found there. None on a target without markers, or when the item keeps another job's
   * marker (`importFrom`).
   */
  readonly identity?: LinkIdentity | undefined;
}

/**
 * Writes the marker (and hidden block) of a target-born item copied to tinyPM as `tinypmItem`,
 * naming that copy, so that the link can be rebuilt from the target alone; the block also carries
 * what the target cannot hold natively of the copy. Stores nothing: the caller confirms the link
 * with the identity returned, so that the link never stands without the marker's copy — and the
 * marker is written first, so that a stop in between leaves the intent, which the next run
 * settles (reconcile.ts), finding the block already there. `leaveOut`: fields the two sides do not
 * agree on (no digest).
 */
export async function markBorn(
  ctx: EngineContext,
  targetItem: WorkItem,
  tinypmItem: WorkItem,
  leaveOut?: readonly WorkItemFieldName[],
): Promise<MarkedBorn> {
  const kind = targetItem.kind;
  if (!ctx.target.capabilities.markers) return { item: targetItem };
  // Written by an earlier attempt whose link was never confirmed (stopped between the two): kept
  // as it stands, and stored.
  const held = bornMarkerOf(ctx, targetItem, tinypmItem);
  if (held !== undefined)
    return { item: targetItem, identity: { marker: held, meta: targetItem.metadata } };
  // An item imported from a job named in `importFrom` keeps that job's marker. Any other is
  // written over: an import `undo` took back (marked undone), or one whose copy is gone.
  if (markerOwner(targetItem.marker, ctx.job) === "foreign") return { item: targetItem };
  const metadata = ctx.mapping.toTarget(tinypmItem).metadata ?? {};
  const marker = jobMarker({
    job: ctx.job,
    mapping: ctx.mapping,
    kind,
    origin: ctx.targetSystem,
    originId: targetItem.id,
    tinypmId: tinypmItem.id,
    agreed: tinypmSnapshot(ctx.mapping, tinypmItem),
    // The target keeps its own values where tinyPM took them its way: the marker says so.
    targetHeld: targetSnapshot(ctx.mapping, { ...targetItem, metadata }),
    leaveOut,
  });
  const written = await rewrite(ctx, "target", {
    name: `mark ${kind} ${targetItem.id}`,
    run: () =>
      ctx.target.update(
        { kind, id: targetItem.id },
        { set: {}, metadata, marker, base: targetItem },
      ),
  });
  // Only the marker and the hidden block come from the answer (see `answeredOver`).
  return {
    item: answeredOver(targetItem, written, new Set(["marker", "metadata"])),
    identity: { marker, meta: metadata },
  };
}

/**
 * The marker `markBorn` writes for `tinypmItem`, when the target item carries it: this job's,
 * naming the item as born there and `tinypmItem` as its copy.
 */
export function bornMarkerOf(
  ctx: EngineContext,
  targetItem: WorkItem,
  tinypmItem: WorkItem,
): Marker | undefined {
  const m = targetItem.marker;
  const names =
    m !== undefined &&
    markerOwner(m, ctx.job) === "ours" &&
    m.origin === ctx.targetSystem &&
    m.originKind === targetItem.kind &&
    m.originId === targetItem.id &&
    m.tinypmId === tinypmItem.id;
  return names ? m : undefined;
}
