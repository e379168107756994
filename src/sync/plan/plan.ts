import type { ItemKind, WorkItem } from "../../core/model.js";
import type { UnreadableItem } from "../../core/tracker.js";
import { liveMarker, markerOwner } from "../../core/identity.js";
import { jobMarker } from "./marker.js";
import { lazyCreate, type CreateMaker } from "./lazy-create.js";
import { mergePair, type Side } from "./merge.js";
import { planUpdate } from "./plan-update.js";
import { labelSpelling } from "./label-case.js";
import { settlePendingWrites } from "./pending-writes.js";
import { deletedBefore, deletion } from "./plan-delete.js";
import { baseDeleted, baseTitle } from "./links.js";
import type { PlanInput } from "./plan-input.js";
import {
  invisibleSkip,
  isBadPayload,
  targetUnreadableSkip,
  unreadableIndex,
  unreadableSkip,
} from "./unreadable.js";
import type {
  CreateAction,
  LinkView,
  Plan,
  PlanAction,
  SkipAction,
  SkipReason,
} from "./plan-types.js";
import { sameJson, targetSnapshot, tinypmSnapshot, type Snapshot } from "./snapshot.js";

const byKey = (kind: ItemKind, id: string): string => `${kind}:${id}`;

/**
 * Plans a job (pure): what `migrate` or `sync` would do, item by item and field by field.
 * Stories come before tasks, creates before updates, deletions last.
 */
export function planActions(input: PlanInput): Plan {
  const tinypm = new Map(input.tinypm.items.map((i) => [byKey(i.kind, i.id), i]));
  const target = new Map(input.target.items.map((i) => [byKey(i.kind, i.id), i]));
  const linkByTinypm = new Map(input.links.map((l) => [byKey(l.kind, l.tinypmId), l]));
  const linkByTarget = new Map(input.links.map((l) => [byKey(l.kind, l.targetId), l]));
  const creates: CreateAction[] = [];
  const others: PlanAction[] = [];
  const adopted = new Set<string>();
  const unreadable = unreadableIndex(input.tinypm.unreadable);
  const targetUnreadable = input.target.unreadable ?? [];
  const invisible = new Map(
    targetUnreadable.filter((u) => !isBadPayload(u)).map((u) => [byKey(u.kind, u.id), u] as const),
  );
  // Target items whose payload fails validation, by id (a target id names one item), unless a
  // later read by id found them readable: parked, never created, updated or taken for deleted.
  const badTarget = badTargetIndex(input);
  const parkTarget = (id: string, link: LinkView | undefined): boolean => {
    const u = badTarget.get(id);
    if (u === undefined) return false;
    badTarget.delete(id);
    others.push(targetUnreadableSkip(u, link, input.targetSystem));
    return true;
  };

  for (const item of input.target.items) {
    const k = byKey(item.kind, item.id);
    if (linkByTarget.has(k)) continue;
    if (input.held?.has(`target:${k}`) === true) {
      others.push(skipOf(item, "ambiguous", { targetId: item.id }));
      continue;
    }
    const m = liveMarker(item.marker);
    const owner = markerOwner(m, input.job);
    const importable = owner === "foreign" && input.job.importFrom?.includes(m?.job ?? "") === true;
    if (owner === "foreign" && !importable) {
      // Another job's or another tinyPM's item: never imported, adopted or updated. A person's
      // issue another job sharing the target imported (its claim) is named as that job's import.
      const by = input.claimed?.get(item.id);
      others.push(
        by !== undefined && by !== input.job.name
          ? { ...skipOf(item, "claimed", { targetId: item.id }), claimedBy: by }
          : skipOf(item, "foreign", { targetId: item.id }),
      );
      continue;
    }
    if (importable) {
      if (input.job.direction === "to-target")
        others.push(skipOf(item, "direction", { targetId: item.id }));
      else creates.push(createAction(input, "tinypm", item));
      continue;
    }
    if (m !== undefined && m.origin !== "tinypm") {
      // Born on the target and already imported by this job (its link is rebuilt before the
      // plan when the tinyPM item exists): never imported again.
      others.push(skipOf(item, "filtered", { targetId: item.id }));
      continue;
    }
    if (m !== undefined) {
      const source = tinypm.get(byKey(m.originKind, m.originId));
      const sk = source === undefined ? "" : byKey(source.kind, source.id);
      if (source && !linkByTinypm.has(sk) && !adopted.has(sk)) {
        adopted.add(sk);
        others.push({
          type: "adopt",
          kind: source.kind,
          title: source.title,
          tinypmItem: source,
          targetItem: item,
        });
      } else {
        // Our own copy whose original is gone or already linked: never imported back as new.
        others.push(skipOf(item, "filtered", { targetId: item.id }));
      }
      continue;
    }
    const claimedBy = input.claimed?.get(item.id);
    if (input.job.direction === "to-target") {
      others.push(skipOf(item, "direction", { targetId: item.id }));
    } else if (claimedBy !== undefined && claimedBy !== input.job.name) {
      // A person's issue on a shared target that another job claimed first: it imports it.
      others.push({ ...skipOf(item, "claimed", { targetId: item.id }), claimedBy });
    } else {
      creates.push(createAction(input, "tinypm", item));
    }
  }

  for (const item of input.tinypm.items) {
    const k = byKey(item.kind, item.id);
    if (adopted.has(k)) continue;
    const link = linkByTinypm.get(k);
    if (link === undefined && input.held?.has(`tinypm:${k}`) === true) {
      others.push(skipOf(item, "ambiguous", { tinypmId: item.id }));
      continue;
    }
    if (link === undefined) {
      if (input.job.direction === "to-tinypm") {
        others.push(skipOf(item, "direction", { tinypmId: item.id }));
      } else {
        creates.push(createAction(input, "target", item));
      }
      continue;
    }
    const targetItem = target.get(byKey(link.kind, link.targetId));
    if (targetItem === undefined && parkTarget(link.targetId, link)) continue;
    const hidden =
      targetItem === undefined ? invisible.get(byKey(link.kind, link.targetId)) : undefined;
    if (hidden !== undefined) {
      others.push(invisibleSkip(hidden, link, item.title, input.targetSystem));
      continue;
    }
    // Gone from the target: planned by planDeletions, below.
    if (targetItem === undefined && targetGone(input, link)) continue;
    others.push(pairAction(input, link, item, targetItem));
  }

  // Items read as their bases hold them and let go (read.ts `inStep`), their copies not read
  // (a copy read brings its item back, read-tinypm.ts `readCounterparts`): planned as a kept
  // one is above — a copy unreadable is parked, else the pair is unchanged.
  for (const k of input.tinypm.inStep ?? []) {
    const link = linkByTinypm.get(k);
    if (tinypm.has(k) || link === undefined) continue;
    if (parkTarget(link.targetId, link)) continue;
    const title = baseTitle(link) ?? "";
    const hidden = invisible.get(byKey(link.kind, link.targetId));
    others.push(
      hidden !== undefined
        ? invisibleSkip(hidden, link, title, input.targetSystem)
        : {
            type: "skip",
            kind: link.kind,
            title,
            tinypmId: link.tinypmId,
            targetId: link.targetId,
            reason: "unchanged",
          },
    );
  }

  for (const u of unreadable.items) {
    if (tinypm.has(byKey(u.kind, u.id))) continue;
    others.push(unreadableSkip(u, linkByTinypm.get(byKey(u.kind, u.id)), input.targetSystem));
  }

  // The rest of the unreadable target items: new ones (not imported), and linked ones whose
  // tinyPM item this run did not read or is gone (parked, not closed or deleted unseen).
  const linkOfTarget = new Map(input.links.map((l) => [l.targetId, l]));
  for (const id of [...badTarget.keys()]) parkTarget(id, linkOfTarget.get(id));

  return {
    job: input.job.name,
    targetSystem: input.targetSystem,
    actions: [...creates.sort(createOrder), ...others, ...planDeletions(input)],
  };
}

/**
 * Target items whose payload fails validation, by id (a target id names one item), unless a later
 * read by id found them readable: parked, never created, updated or taken for deleted.
 */
function badTargetIndex(input: DeletionInput): Map<string, UnreadableItem> {
  return new Map(
    (input.target.unreadable ?? [])
      .filter((u) => isBadPayload(u) && !input.target.items.some((i) => i.id === u.id))
      .map((u) => [u.id, u] as const),
  );
}

/** Whether a linked target item not read this run is gone (a complete read, or read by id). */
function targetGone(input: DeletionInput, link: LinkView): boolean {
  return input.target.complete || input.target.gone?.has(byKey(link.kind, link.targetId)) === true;
}

/** What the deletions of a run depend on: the read and the links, not the mapping's codecs. */
export type DeletionInput = Omit<PlanInput, "mapping">;

/** A linked item gone from one side, with its title and the other side's copy if read. */
interface Gone {
  readonly link: LinkView;
  readonly title: string;
  readonly deletedOn: Side;
  readonly survivor: WorkItem | undefined;
}

/**
 * The deletions of a plan (pure), in the plan's order: linked items gone from the target (in
 * tinyPM's order), then linked items gone from tinyPM (in the links' order). They depend on the
 * read and the links alone, so the deletion guard counts them before a run settles anything,
 * without planning the rest.
 */
export function planDeletions(input: PlanInput): PlanAction[] {
  return goneItems(input).flatMap((g) => deletion(input, g.link, g.title, g.deletedOn, g.survivor));
}

/** The linked items a run finds gone from one side: what `planDeletions` plans for. */
function goneItems(input: DeletionInput): Gone[] {
  const tinypm = new Map(input.tinypm.items.map((i) => [byKey(i.kind, i.id), i]));
  const target = new Map(input.target.items.map((i) => [byKey(i.kind, i.id), i]));
  const linkByTinypm = new Map(input.links.map((l) => [byKey(l.kind, l.tinypmId), l]));
  const invisible = new Set((input.target.unreadable ?? []).map((u) => byKey(u.kind, u.id)));
  const unreadable = unreadableIndex(input.tinypm.unreadable);
  const bad = badTargetIndex(input);
  const out: Gone[] = [];
  for (const item of input.tinypm.items) {
    const link = linkByTinypm.get(byKey(item.kind, item.id));
    if (link === undefined) continue;
    const k = byKey(link.kind, link.targetId);
    // Not read, not gone: a copy the service no longer shows, or one whose payload fails
    // validation (by id: the kind its payload tells may not be the link's).
    if (target.has(k) || invisible.has(k) || bad.has(link.targetId) || !targetGone(input, link))
      continue;
    out.push({ link, title: item.title, deletedOn: "target", survivor: item });
  }
  const inStep = input.tinypm.inStep;
  for (const link of input.links) {
    const k = byKey(link.kind, link.tinypmId);
    if (tinypm.has(k) || inStep?.has(k) === true || !input.tinypm.complete) continue;
    // Not read, not gone: an unreadable item (or a task of one) keeps its link and its copy.
    if (unreadable.covers(link)) continue;
    const targetItem = target.get(byKey(link.kind, link.targetId));
    // Its copy could not be read: parked by planActions, not closed or deleted unseen.
    if (targetItem === undefined && bad.has(link.targetId)) continue;
    out.push({
      link,
      title: goneTitle(link, targetItem),
      deletedOn: "tinypm",
      survivor: targetItem,
    });
  }
  return out;
}

/** The linked items a run finds gone from one side whose deletion it has not recorded yet. */
export function goneLinks(input: DeletionInput): LinkView[] {
  return goneItems(input).flatMap((g) => (deletedBefore(g.link, g.deletedOn) ? [] : [g.link]));
}

/**
 * Whether a run whose target read returned nothing plans only skips (pure): no tinyPM item to
 * create on the target and no deletion to mirror (every item found gone was deleted before). With
 * no target item read, every linked pair is skipped and nothing is imported or adopted, so that
 * is the whole question — asked before the target's users are read and without the mapping
 * compiled, so that a quiet sync costs the target nothing but its feed.
 */
export function quietPlan(input: DeletionInput): boolean {
  // A target item read but unreadable is parked (or its pair kept): a plan to make, not quiet.
  if (input.target.items.length > 0 || (input.target.unreadable?.length ?? 0) > 0) return false;
  const linked = new Set(input.links.map((l) => byKey(l.kind, l.tinypmId)));
  const creates =
    input.job.direction !== "to-tinypm" &&
    input.tinypm.items.some(
      (i) =>
        !linked.has(byKey(i.kind, i.id)) &&
        input.held?.has(`tinypm:${byKey(i.kind, i.id)}`) !== true,
    );
  return !creates && goneItems(input).every((g) => deletedBefore(g.link, g.deletedOn));
}

/**
 * The title of an item gone from tinyPM: its copy's, when read this run, else the title both sides
 * had at the last sync (the link's base, kept in the state), so that later reports still name it.
 */
function goneTitle(link: LinkView, targetItem: WorkItem | undefined): string {
  if (targetItem !== undefined) return targetItem.title;
  const base = baseTitle(link);
  return base !== undefined && base !== "" ? base : `#${link.targetId}`;
}

/**
 * Ids in numeric order ("9" before "10"). One collator for every comparison: `localeCompare` with
 * options builds an ICU collator per call, whose native memory is freed only after the sort
 * returns — sorting 16,000 creates took 68 MB of the process's memory for good (glibc keeps it)
 * and a second and a half.
 */
const byNumericId = new Intl.Collator("en", { numeric: true }).compare;

/**
 * Stories before tasks; within a kind, in the source's id order, so that the copies' ids keep the
 * originals' relative order (a round trip gives the same project back, ids aside).
 */
function createOrder(a: CreateAction, b: CreateAction): number {
  if (a.kind !== b.kind) return a.kind === "story" ? -1 : 1;
  return byNumericId(a.source.id, b.source.id);
}

/** A draft without an empty description (an empty description is no description). */
function withoutEmptyDescription<T extends { readonly description?: string | undefined }>(d: T): T {
  return d.description === "" ? { ...d, description: undefined } : d;
}

/** The create of `source` on `toSide` (exported: a create found again is checked against it). */
export function createAction(
  input: Pick<PlanInput, "mapping" | "job">,
  toSide: Side,
  source: WorkItem,
): CreateAction {
  return lazyCreate(toSide, source, makerOf(input, toSide));
}

/** Each mapping's and job's makers, one per side: shared by every create of a plan. */
const makers = new WeakMap<object, WeakMap<object, Record<Side, CreateMaker>>>();

function makerOf(input: Pick<PlanInput, "mapping" | "job">, toSide: Side): CreateMaker {
  const { mapping, job } = input;
  let byJob = makers.get(mapping);
  if (byJob === undefined) makers.set(mapping, (byJob = new WeakMap()));
  let pair = byJob.get(job);
  if (pair === undefined) byJob.set(job, (pair = createMakers(input)));
  return pair[toSide];
}

/** The makers hold the mapping and the job: not the plan's whole input. */
function createMakers({
  mapping: m,
  job,
}: Pick<PlanInput, "mapping" | "job">): Record<Side, CreateMaker> {
  return {
    target: {
      draft: (source) => ({
        ...m.toTarget(source),
        marker: jobMarker({
          job,
          mapping: m,
          kind: source.kind,
          origin: "tinypm",
          originId: source.id,
          tinypmId: source.id,
          agreed: tinypmSnapshot(m, source),
        }),
      }),
      comments: (source) => source.comments.map((c) => m.commentToTarget(c)),
      timeEntries: (source) => m.timeEntriesToTarget(source),
    },
    tinypm: {
      draft: (source) => withoutEmptyDescription(m.toTinypm(source)),
      comments: (source) => source.comments.map((c) => m.commentToTinypm(c)),
      timeEntries: (source) => m.timeEntriesToTinypm(source),
    },
  };
}

/** A linked pair: unchanged, or an update (with conflicts) computed by the three-way merge. */
function pairAction(
  input: PlanInput,
  stored: LinkView,
  item: WorkItem,
  targetItem: WorkItem | undefined,
): PlanAction {
  const skip = (reason: SkipReason): PlanAction =>
    skipOf(item, reason, { tinypmId: item.id, targetId: stored.targetId });
  if (baseDeleted(stored, "tinypm") || baseDeleted(stored, "target")) return skip("deleted");
  // Not read this run (incremental target feed): a tinyPM change would have had its copy read
  // (run-read.ts), so the pair is as it was. Its bases are not needed (a quiet sync holds none).
  if (targetItem === undefined) return skip("unchanged");
  const t = tinypmSnapshot(input.mapping, item);
  const blockless = input.blockless?.get(byKey(stored.kind, stored.targetId));
  const read = targetSnapshot(input.mapping, targetItem);
  // GitHub labels in tinyPM's spelling of the tags (one label whatever its case).
  const spelling = labelSpelling(input.mapping, item.labels, stored.baseTinypm.fields.labels);
  // A missing block is never data: with no copy of it, what it carried is taken as tinyPM's.
  const g = spelling.snapshot(blockless === "unknown" ? fillFrom(read, t) : read);
  // Writes of an earlier run that stopped before its base update: the base they call for.
  const link = settlePendingWrites(
    { ...stored, baseTarget: spelling.snapshot(stored.baseTarget) },
    { snapshot: t, updatedAt: item.updatedAt },
    { snapshot: g, updatedAt: targetItem.updatedAt },
  );
  const settles =
    (stored.pendingWrites?.length ?? 0) > 0 ||
    input.openConflicts?.has(byKey(item.kind, item.id)) === true;
  const merge = mergePair({
    fieldNames: input.mapping.fieldNames(item.kind),
    tinypm: t,
    target: g,
    baseTinypm: link.baseTinypm,
    baseTarget: link.baseTarget,
    direction: input.job.direction,
    policy: input.job.conflicts,
    resolved: input.resolved?.get(byKey(item.kind, item.id)),
    newest: newestSide(link, targetItem, input.now),
    keepTargetEdits: input.job.keepTargetEdits,
  });
  const nothing =
    merge.toTarget.length + merge.toTinypm.length + merge.conflicts.length === 0 &&
    merge.commentsToTarget.length +
      merge.commentsToTinypm.length +
      merge.timeToTarget.length +
      merge.timeToTinypm.length ===
      0;
  // The feed returned the target item (it changed since the checkpoint) yet it holds what we
  // last synced: the change was our own write read back.
  const repairNow = blockless !== undefined && input.job.repairMarkers === true;
  if (
    nothing &&
    !repairNow &&
    !settles &&
    sameSnapshot(t, link.baseTinypm) &&
    sameSnapshot(g, link.baseTarget) &&
    !labelsLag(input, item, targetItem)
  )
    return skip(input.target.complete ? "unchanged" : "echo");
  // Nothing to write but a stale base (both sides made the same change, or an update was
  // interrupted after its first write) or pending writes to settle: the update writes nothing
  // and only moves the base, so that a later change on one side is not taken for a conflict.
  return planUpdate({
    mapping: input.mapping,
    job: input.job,
    link,
    item,
    targetItem,
    t,
    g,
    merge,
    repairMarker: repairNow,
    markerMissing: blockless !== undefined,
    richText: input.job.richText,
    resolvedDescription: input.resolved?.get(byKey(item.kind, item.id))?.description,
    canTinypm: input.job.direction !== "to-target",
  });
}

/**
 * Whether the target item lacks the labels of the values both sides agree on (a stale family
 * label left by an earlier change, a second label of a single-valued family): then the pair is
 * planned as an update that rewrites only its labels (plan-update.ts), never skipped.
 */
function labelsLag(input: PlanInput, item: WorkItem, targetItem: WorkItem): boolean {
  if (input.job.direction === "to-tinypm") return false;
  const desired = input.mapping.toTarget(item).labels;
  return input.mapping.followLabels(item.kind, desired, targetItem.labels) !== undefined;
}

/** `g` with every field it lacks taken from `t`. */
function fillFrom(g: Snapshot, t: Snapshot): Snapshot {
  return { ...g, fields: { ...t.fields, ...g.fields } };
}

/**
 * For `newest`: the target knows when it changed; tinyPM keeps no change times, so a tinyPM
 * change is dated halfway between the last sync and this scan.
 */
export function newestSide(link: LinkView, targetItem: WorkItem | undefined, now: Date): Side {
  const synced = Date.parse(link.syncedAt);
  const tinypmAt = Number.isFinite(synced) ? (synced + now.getTime()) / 2 : now.getTime();
  const targetAt = targetItem?.updatedAt === undefined ? 0 : Date.parse(targetItem.updatedAt);
  return targetAt > tinypmAt ? "target" : "tinypm";
}

function skipOf(
  item: WorkItem,
  reason: SkipReason,
  ids: { tinypmId?: string; targetId?: string },
): SkipAction {
  return { type: "skip", kind: item.kind, title: item.title, ...ids, reason };
}

function sameSnapshot(a: Snapshot, b: Snapshot): boolean {
  return (
    sameJson(a.fields, b.fields) &&
    sameJson(a.comments, b.comments) &&
    sameJson(a.timeEntries, b.timeEntries)
  );
}
