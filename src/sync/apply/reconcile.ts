import type { WorkItem } from "../../core/model.js";
import type { EngineContext } from "../context.js";
import { linkRecord } from "../plan/links.js";
import { foundCopyBases } from "./found-copy.js";
import { ensureTargetParent } from "./parent.js";
import { EMPTY_SNAPSHOT, type Snapshot, tinypmSnapshot } from "../plan/snapshot.js";

/**
 * Settles the creates an interrupted run left unconfirmed: a target create is found by its
 * marker, a tinyPM create by an unlinked item of the same kind and title. Found → linked (its
 * comments and time entries are then completed by the normal merge); not found → the intent is
 * dropped and the planner creates the item again.
 */
export async function reconcileIntents(
  ctx: EngineContext,
  tinypmItems: readonly WorkItem[],
  targetItems: readonly WorkItem[],
): Promise<number> {
  let linked = 0;
  for (const intent of await ctx.state.pendingIntents(ctx.job.name)) {
    const toTarget = intent.targetSystem !== "tinypm";
    const found = toTarget
      ? await findTargetCreate(ctx, intent.kind, intent.originId, targetItems)
      : await findTinypmCreate(ctx, intent.kind, intent.originId, tinypmItems, targetItems);
    const source = toTarget
      ? tinypmItems.find((i) => i.kind === intent.kind && i.id === intent.originId)
      : targetItems.find((i) => i.kind === intent.kind && i.id === intent.originId);
    if (found === undefined || source === undefined) {
      await ctx.state.dropIntent(intent.id);
      continue;
    }
    const tinypmItem = toTarget ? source : found;
    // Before the link: if attaching fails, the intent stays and the next run tries again.
    const targetItem = toTarget ? await ensureTargetParent(ctx, found, source) : source;
    const copied = (s: Snapshot): Snapshot => ({ ...s, comments: [], timeEntries: {} });
    const copy = toTarget ? foundCopyBases(ctx.mapping, tinypmItem, targetItem) : undefined;
    await ctx.state.confirmIntent(
      intent.id,
      linkRecord({
        job: ctx.job.name,
        kind: intent.kind,
        tinypmId: tinypmItem.id,
        targetSystem: ctx.targetSystem,
        targetId: targetItem.id,
        origin: toTarget ? "tinypm" : ctx.targetSystem,
        parentTinypmId: tinypmItem.parentId,
        // A target copy: its marker's digests tell what the create wrote from what a person
        // changed since, and a copy cut short (GitHub: created, not yet closed) lets tinyPM's
        // value flow (found-copy.ts). A tinyPM copy: the origin's base is empty, so every field
        // where the copy still differs flows on the next plan.
        baseTinypm: copy?.tinypm ?? copied(tinypmSnapshot(ctx.mapping, tinypmItem)),
        baseTarget: copy?.target ?? EMPTY_SNAPSHOT,
        now: ctx.now(),
      }),
    );
    linked++;
  }
  return linked;
}

async function findTargetCreate(
  ctx: EngineContext,
  kind: WorkItem["kind"],
  originId: string,
  targetItems: readonly WorkItem[],
): Promise<WorkItem | undefined> {
  const marker = { job: ctx.job.name, origin: "tinypm" as const, originKind: kind, originId };
  const seen = targetItems.find(
    (i) =>
      i.marker?.job === marker.job &&
      i.marker.origin === "tinypm" &&
      i.marker.originKind === kind &&
      i.marker.originId === originId,
  );
  return seen ?? (await ctx.target.findByMarker(marker));
}

async function findTinypmCreate(
  ctx: EngineContext,
  kind: WorkItem["kind"],
  originId: string,
  tinypmItems: readonly WorkItem[],
  targetItems: readonly WorkItem[],
): Promise<WorkItem | undefined> {
  const source = targetItems.find((i) => i.kind === kind && i.id === originId);
  if (source === undefined) return undefined;
  const title = ctx.mapping.toTinypm(source).title;
  for (const i of tinypmItems) {
    if (i.kind !== kind || i.title !== title) continue;
    if ((await ctx.state.getLinkByTinypm(ctx.job.name, kind, i.id)) === undefined) return i;
  }
  return undefined;
}
