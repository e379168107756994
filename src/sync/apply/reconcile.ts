import type { WorkItem } from "../../core/model.js";
import { call, type EngineContext } from "../context.js";
import { linkRecord } from "../plan/links.js";
import { createAction } from "../plan/plan.js";
import { sameJson, targetSnapshot, tinypmSnapshot } from "../plan/snapshot.js";
import { draftCreate, markBorn } from "./apply-create.js";
import { foundCopyBases, foundTinypmCopyBase } from "./found-copy.js";
import { ensureTargetParent } from "./parent.js";

/**
 * Settles the creates an interrupted run left unconfirmed: a target create is found by its
 * marker, a tinyPM create by an unlinked item of the same kind and title. Found → linked (its
 * comments and time entries are then completed by the normal merge; a target-born item gets its
 * marker); not found → the intent is dropped and the planner creates the item again.
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
    // A target copy: its marker's digests tell what the create wrote from what a person changed
    // since; a copy cut short (GitHub: created, not yet closed) lets tinyPM's value flow. A tinyPM
    // copy: a field where the sides differ was changed since the create on one side; which one,
    // the intent's draft hash tells when the target item still maps to that draft (found-copy.ts).
    const pair = toTarget
      ? {
          ...foundCopyBases(
            ctx.mapping,
            tinypmItem,
            targetItem,
            await statusesIfDiffering(ctx, tinypmItem, targetItem),
          ),
          differing: [],
        }
      : foundTinypmCopyBase(
          ctx.mapping,
          found,
          source,
          await sameDraft(ctx, source, intent.payloadHash),
        );
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
        baseTinypm: pair.tinypm,
        baseTarget: pair.target,
        now: ctx.now(),
      }),
    );
    // The marker the interrupted import would have written next: without it the item could not
    // be told apart from a person's new issue, nor its link rebuilt from the target alone.
    if (!toTarget) await markBorn(ctx, source, found, pair.differing);
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

/** Whether a target item still maps to the draft its interrupted import sent (by the intent's hash). */
async function sameDraft(ctx: EngineContext, source: WorkItem, hash: string): Promise<boolean> {
  try {
    const { intent } = await draftCreate(ctx, createAction(ctx, "tinypm", source));
    return intent.payloadHash === hash;
  } catch {
    // A task whose story is not linked: the draft cannot be built again, so it cannot be told.
    return false;
  }
}

/**
 * The statuses a found target copy has held (its history, where the target keeps one), read only
 * when its status differs from tinyPM's: a close the create had not made yet, or a person's
 * change after it (found-copy.ts).
 */
async function statusesIfDiffering(
  ctx: EngineContext,
  tinypmItem: WorkItem,
  copy: WorkItem,
): Promise<readonly string[] | undefined> {
  const read = ctx.target.statusHistory?.bind(ctx.target);
  if (read === undefined) return undefined;
  const t = tinypmSnapshot(ctx.mapping, tinypmItem).fields.status;
  if (sameJson(t, targetSnapshot(ctx.mapping, copy).fields.status)) return undefined;
  return call(ctx, "target", {
    name: `read the status history of ${copy.kind} ${copy.id}`,
    kind: "read",
    idempotent: true,
    run: () => read({ kind: copy.kind, id: copy.id }),
  });
}
