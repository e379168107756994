import type { ItemKind, JsonValue, Marker, WorkItem } from "../../core/model.js";
import { markerOwner } from "../../core/identity.js";
import type { EngineContext } from "../context.js";
import { rewrite } from "./ensure.js";
import { markerStale, withTargetDigests } from "../plan/marker.js";
import type { UpdateAction } from "../plan/plan-types.js";
import type { Snapshot } from "../plan/snapshot.js";

/**
 * After a write to the target: when what the target answered (`held`, tinyPM terms) is not what
 * the marker it holds says it holds — a value it chose itself (Jira's default priority for an
 * issue sent without one) or normalised — the marker is written again with the target digests
 * that say so, so that a link rebuilt after a lost state has the target base the state holds.
 * One marker-only write, and only then; returns the marker the target now holds.
 */
export async function refreshTargetDigests(
  ctx: EngineContext,
  o: {
    readonly kind: ItemKind;
    readonly item: WorkItem;
    readonly marker: Marker;
    readonly metadata: Readonly<Record<string, JsonValue>>;
    readonly held: Snapshot;
  },
): Promise<Marker> {
  const wanted = withTargetDigests(o.marker, o.held);
  if (!markerStale(o.marker, wanted)) return o.marker;
  await rewrite(ctx, "target", {
    name: `mark ${o.kind} ${o.item.id}`,
    run: () =>
      ctx.target.update(
        { kind: o.kind, id: o.item.id },
        { set: {}, metadata: o.metadata, marker: wanted, base: o.item },
      ),
  });
  return wanted;
}

/**
 * After an update that wrote the target: the same check for the marker the target now holds
 * (this job's only), and the state's copy of the block follows when the marker is written again.
 */
export async function refreshAfterUpdate(
  ctx: EngineContext,
  a: UpdateAction,
  after: WorkItem,
  held: Snapshot,
): Promise<void> {
  const marker = after.marker ?? a.targetMarker ?? a.targetItem.marker;
  if (marker === undefined || markerOwner(marker, ctx.job) !== "ours") return;
  const metadata =
    after.marker === undefined ? (a.targetMetadata ?? a.targetItem.metadata) : after.metadata;
  const now = await refreshTargetDigests(ctx, {
    kind: a.kind,
    item: after,
    marker,
    metadata,
    held,
  });
  if (now === marker) return;
  ctx.emit({ type: "marker_rewritten", kind: a.kind, id: after.id, fields: changed(marker, now) });
  await ctx.state.putLinkIdentity(ctx.job.name, a.kind, a.link.tinypmId, {
    marker: now,
    meta: metadata,
  });
}

/** The fields whose target digest differs between two markers. */
function changed(before: Marker, after: Marker): string[] {
  const a = before.target ?? {};
  const b = after.target ?? {};
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((n) => a[n] !== b[n]).sort();
}
