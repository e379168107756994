import type { WorkItem, WorkItemFieldName } from "../../core/model.js";
import type { LinkIdentity } from "../../state/identity-table.js";
import type { IntentRecord, LinkRecord } from "../../state/records.js";
import { call, type EngineContext } from "../context.js";
import { linkRecord } from "../plan/links.js";
import { createAction } from "../plan/plan.js";
import { sameJson, targetSnapshot, tinypmSnapshot } from "../plan/snapshot.js";
import { draftCreate } from "./apply-create.js";
import { bornMarkerOf, markBorn } from "./born-marker.js";
import { foundCopyBases, foundTinypmCopyBase } from "./found-copy.js";
import { ensureTargetParent } from "./parent.js";
import { anchorKept, pairAnchors, readAnchor, type AnchorVerdict } from "./tinypm-anchor.js";

/** What settling the interrupted creates did. */
export interface Reconciled {
  readonly linked: number;
  /** The links settling stored (found creates), as written: the caller need not read them back. */
  readonly links: readonly LinkRecord[];
  /**
   * Items left alone this run (`side:kind:id`, as the identity step's `held`): a target item
   * whose tinyPM copy cannot be told from another candidate, and those candidates.
   */
  readonly held: ReadonlySet<string>;
}

/**
 * Settles the creates an interrupted run left unconfirmed: a target create is found by its
 * marker; a tinyPM create, which cannot carry one, by its anchor (tinypm-anchor.ts: an unlinked
 * item newer than the create, still holding the title or the description sent; an intent
 * recorded before anchors: by title). Found → linked (its comments and time entries are then
 * completed by the normal merge; a target-born item gets its marker); not found → the intent is
 * dropped and the planner creates the item again; several candidates → nothing is guessed or
 * created: the intent stays, the item is parked (`identity_ambiguous`) naming them, and held.
 */
export async function reconcileIntents(
  ctx: EngineContext,
  tinypmItems: readonly WorkItem[],
  targetItems: readonly WorkItem[],
): Promise<Reconciled> {
  let linked = 0;
  const links: LinkRecord[] = [];
  const held = new Set<string>();
  const intents = await ctx.state.pendingIntents(ctx.job.name);
  const anchored = await anchoredVerdicts(ctx, intents, tinypmItems);
  for (const intent of intents) {
    const toTarget = intent.targetSystem !== "tinypm";
    const verdict = anchored.get(intent.id);
    if (verdict !== undefined && "ambiguous" in verdict) {
      await holdAmbiguous(ctx, intent, verdict.ambiguous, targetItems, held);
      continue;
    }
    const found = toTarget
      ? await findTargetCreate(ctx, intent.kind, intent.originId, targetItems)
      : verdict !== undefined
        ? "found" in verdict
          ? verdict.found
          : undefined
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
      : await foundImportBase(ctx, intent, found, asImported(ctx, source, found));
    const link = linkRecord({
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
    });
    // The marker the interrupted import would have written next (or wrote, its link not
    // confirmed: then it is only read), before the link and stored with it: without it the item
    // could not be told apart from a person's new issue, nor its link rebuilt from the target.
    const identity = toTarget
      ? undefined
      : await markFound(ctx, intent, link, source, found, pair.differing);
    await ctx.state.confirmIntent(intent.id, link, identity);
    links.push(link);
    settledCreate(ctx, intent, source, found);
    linked++;
  }
  return { linked, links, held };
}

/**
 * Marks the target item of an interrupted import whose tinyPM copy was found; the block to store
 * with the link. A marker write that fails links the copy all the same (without the block's copy)
 * before the error goes on: the copy is found now, and left an intent it would have to be found
 * again by a later run, which may not manage — the issue missing from that run's read drops the
 * intent (the copy is then exported as a new issue, and the issue imported again), a tinyPM item
 * taking the title sent makes it ambiguous. A linked item without its block is reported
 * (`blockless`) and given it back by its next write or `--repair-markers`.
 */
async function markFound(
  ctx: EngineContext,
  intent: IntentRecord,
  link: LinkRecord,
  source: WorkItem,
  found: WorkItem,
  leaveOut: readonly WorkItemFieldName[],
): Promise<LinkIdentity | undefined> {
  try {
    return (await markBorn(ctx, source, found, leaveOut)).identity;
  } catch (error) {
    await ctx.state.confirmIntent(intent.id, link);
    settledCreate(ctx, intent, source, found);
    throw error;
  }
}

/** The interrupted run recorded no create for a settled one: it is this run's to take back (`undo`). */
function settledCreate(
  ctx: EngineContext,
  intent: IntentRecord,
  source: WorkItem,
  found: WorkItem,
): void {
  ctx.emit({
    type: "created",
    kind: intent.kind,
    side: intent.targetSystem === "tinypm" ? "tinypm" : "target",
    title: source.title,
    id: found.id,
    sourceId: source.id,
    settled: true,
    ...(found.url !== undefined && { url: found.url }),
  });
}

/**
 * The verdicts of the anchored tinyPM creates, decided together (two interrupted imports of
 * issues with one title must not take each other's copy). Candidates: the unlinked tinyPM items
 * of the kind that no pending create of this job copies to the target.
 */
async function anchoredVerdicts(
  ctx: EngineContext,
  intents: readonly IntentRecord[],
  tinypmItems: readonly WorkItem[],
): Promise<ReadonlyMap<number, AnchorVerdict>> {
  const verdicts = new Map<number, AnchorVerdict>();
  const exporting = new Set(
    intents.filter((i) => i.targetSystem !== "tinypm").map((i) => `${i.kind}:${i.originId}`),
  );
  for (const kind of ["story", "task"] as const) {
    const anchored = intents.flatMap((i) => {
      const anchor =
        i.targetSystem === "tinypm" && i.kind === kind ? readAnchor(i.anchor) : undefined;
      return anchor === undefined ? [] : [{ intentId: i.id, anchor }];
    });
    if (anchored.length === 0) continue;
    const candidates: WorkItem[] = [];
    for (const item of tinypmItems) {
      if (item.kind !== kind || exporting.has(`${kind}:${item.id}`)) continue;
      if ((await ctx.state.getLinkByTinypm(ctx.job.name, kind, item.id)) === undefined)
        candidates.push(item);
    }
    for (const [id, verdict] of pairAnchors(anchored, candidates)) verdicts.set(id, verdict);
  }
  return verdicts;
}

/** Parks the target item of an import whose copy cannot be told apart, naming the candidates. */
async function holdAmbiguous(
  ctx: EngineContext,
  intent: IntentRecord,
  candidates: readonly WorkItem[],
  targetItems: readonly WorkItem[],
  held: Set<string>,
): Promise<void> {
  const source = targetItems.find((i) => i.kind === intent.kind && i.id === intent.originId);
  const named = candidates.map((c) => `${c.id} "${c.title}"`).join(", ");
  held.add(`target:${intent.kind}:${intent.originId}`);
  for (const c of candidates) held.add(`tinypm:${c.kind}:${c.id}`);
  await ctx.state.parkFailure({
    runId: ctx.runId,
    job: ctx.job.name,
    kind: intent.kind,
    targetId: intent.originId,
    side: "target",
    code: "identity_ambiguous",
    message:
      `${intent.kind} ${intent.originId}${source === undefined ? "" : ` "${source.title}"`} was ` +
      `being imported into tinyPM when a run stopped; its copy could be any of the tinyPM ` +
      `${intent.kind === "story" ? "stories" : "tasks"} ${named} (each holds the title or the ` +
      "description that import sent, and is linked to nothing): left alone, nothing created. " +
      "Delete the one that is not its copy, or retitle it, then run again.",
  });
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

/** The bases of an interrupted import's found tinyPM copy and its target item (found-copy.ts). */
async function foundImportBase(
  ctx: EngineContext,
  intent: IntentRecord,
  copy: WorkItem,
  source: WorkItem,
): Promise<ReturnType<typeof foundTinypmCopyBase>> {
  const same = await sameDraft(ctx, source, intent.payloadHash);
  return foundTinypmCopyBase(ctx.mapping, copy, source, same, keptFields(intent.anchor, copy));
}

/**
 * A target item as its interrupted import read it: the block that import wrote taken off (it was
 * stopped after the marker write, before the link), so that the item is compared with the draft
 * the import sent, not with what the block added (the copy's values the target cannot hold).
 */
function asImported(ctx: EngineContext, source: WorkItem, copy: WorkItem): WorkItem {
  if (bornMarkerOf(ctx, source, copy) === undefined) return source;
  const { marker: _written, ...read } = source;
  return { ...read, metadata: {} };
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
    run: () => read({ kind: copy.kind, id: copy.id }),
  });
}

/** The fields a found tinyPM copy still holds as its create sent them (none without an anchor). */
function keptFields(text: string | undefined, copy: WorkItem): ReadonlySet<WorkItemFieldName> {
  const anchor = readAnchor(text);
  return anchor === undefined ? new Set() : anchorKept(anchor, copy);
}
