import {
  WORK_ITEM_FIELD_NAMES,
  type JsonValue,
  type Marker,
  type WorkItem,
  type WorkItemFieldName,
  type WorkItemFields,
} from "../core/model.js";
import type { CompiledMapping } from "../mapping/compile.js";
import { jobMarker, markerStale } from "./marker.js";
import type { MergeResult } from "./merge.js";
import { tinypmSnapshot, type PlanJob } from "./plan.js";
import type { FieldChange, LinkView, UpdateAction } from "./plan-types.js";
import { commentKey, normalizeField, sameJson, timeEntryKey, type Snapshot } from "./snapshot.js";

export interface PlanUpdateInput {
  readonly mapping: CompiledMapping;
  readonly job: PlanJob;
  readonly link: LinkView;
  readonly item: WorkItem;
  readonly targetItem: WorkItem;
  readonly t: Snapshot;
  readonly g: Snapshot;
  readonly merge: MergeResult;
  /** Write the hidden block back even if nothing else is written (`--repair-markers`). */
  readonly repairMarker?: boolean | undefined;
  /** The item's block was missing or damaged (its marker is the state's copy). */
  readonly markerMissing?: boolean | undefined;
}

/**
 * Turns a merge into writes: tinyPM gets the target's values of the fields that flow to it; the
 * target gets the mapped draft of the merged item, reduced to the target fields that differ
 * from what it holds (fields in a parked conflict keep the target's own value).
 */
export function planUpdate(p: PlanUpdateInput): UpdateAction {
  const fromTarget: Partial<WorkItemFields> = p.mapping.toTinypm(p.targetItem);
  const tinypmSet: Record<string, unknown> = {};
  for (const f of p.merge.toTinypm) tinypmSet[f] = fromTarget[f];
  const parked = p.merge.conflicts.filter((c) => c.resolution === "parked").map((c) => c.field);
  const targetTime = p.mapping.timeEntriesToTinypm(p.targetItem);
  const timeToTinypm = targetTime.filter((e) => p.merge.timeToTinypm.includes(timeEntryKey(e)));
  const merged: WorkItem = {
    ...p.item,
    ...(tinypmSet as Partial<WorkItemFields>),
    ...pick(fromTarget, parked),
    timeEntries: mergeTime(p.item, timeToTinypm),
  };
  const timeSelected0 = p.merge.toTinypm.length + p.merge.toTarget.length;
  const target = targetWrites(p, merged, parked, timeSelected0);
  const timeSelected = p.item.timeEntries.filter((e) =>
    p.merge.timeToTarget.includes(timeEntryKey(e)),
  );
  return {
    type: "update",
    kind: p.item.kind,
    title: p.item.title,
    link: p.link,
    tinypmItem: p.item,
    targetItem: p.targetItem,
    changes: [
      ...p.merge.toTarget.map((field) => change(field, "target", p.g, p.t)),
      ...p.merge.toTinypm.map((field) => change(field, "tinypm", p.t, p.g)),
    ],
    conflicts: p.merge.conflicts,
    tinypmSet: tinypmSet,
    targetSet: target.set,
    targetMetadata: target.metadata,
    ...(target.marker !== undefined && { targetMarker: target.marker }),
    commentsToTarget: p.item.comments
      .filter((c) => p.merge.commentsToTarget.includes(commentKey(c)))
      .map((c) => p.mapping.commentToTarget(c)),
    commentsToTinypm: p.targetItem.comments
      .map((c) => p.mapping.commentToTinypm(c))
      .filter((c) => p.merge.commentsToTinypm.includes(commentKey(c))),
    timeToTarget: p.mapping.timeEntriesToTarget({ ...p.item, timeEntries: timeSelected }),
    timeToTinypm,
  };
}

function change(
  field: WorkItemFieldName,
  toSide: "tinypm" | "target",
  before: Snapshot,
  after: Snapshot,
): FieldChange {
  return { field, toSide, from: before.fields[field], to: after.fields[field] };
}

function pick(
  fields: Partial<WorkItemFields>,
  names: readonly WorkItemFieldName[],
): Partial<WorkItemFields> {
  const out: Record<string, unknown> = {};
  for (const n of names) out[n] = fields[n];
  return out;
}

function mergeTime(item: WorkItem, incoming: WorkItem["timeEntries"]): WorkItem["timeEntries"] {
  const byKey = new Map(item.timeEntries.map((e) => [timeEntryKey(e), e]));
  for (const e of incoming) byKey.set(timeEntryKey(e), e);
  return [...byKey.values()];
}

/**
 * The target fields (and hidden block) to write, only when something flows to the target. A
 * target field is written only when a tinyPM change that flows to the target reaches it (the
 * base snapshot is the judge): the mapped draft is computed twice, with and without the flowing
 * changes, and only the target fields that differ between the two are candidates. So a title edit
 * never rewrites a body whose rendering today would differ from what a person wrote. The marker
 * is written when the pair is written at all and the item's marker is missing, version 1 or stale
 * (its digests name the values both sides hold now), or at once under `--repair-markers`.
 */
function targetWrites(
  p: PlanUpdateInput,
  merged: WorkItem,
  parked: readonly WorkItemFieldName[],
  fieldFlows: number,
): {
  set: Partial<WorkItemFields>;
  metadata: Readonly<Record<string, JsonValue>> | undefined;
  marker?: Marker | undefined;
} {
  const timeMoves = p.merge.timeToTinypm.length > 0 || p.merge.timeToTarget.length > 0;
  const needed = p.merge.toTarget.length > 0 || timeMoves;
  const resolvedForTarget = p.merge.conflicts.some((c) => c.resolution === "tinypm");
  const wanted = jobMarker({
    job: p.job,
    mapping: p.mapping,
    kind: p.item.kind,
    origin: p.link.origin,
    originId: p.link.origin === "tinypm" ? p.link.tinypmId : p.link.targetId,
    tinypmId: p.link.tinypmId,
    agreed: tinypmSnapshot(p.mapping, merged),
    leaveOut: parked,
  });
  const written = needed || resolvedForTarget || fieldFlows > 0 || p.repairMarker === true;
  const stale = p.markerMissing === true || markerStale(p.targetItem.marker, wanted);
  const marker = written && stale ? wanted : undefined;
  if (!needed && !resolvedForTarget) {
    if (marker === undefined) return { set: {}, metadata: undefined };
    // Only the block is written: with the metadata the merged item gives (a missing block's
    // values were filled from tinyPM, so nothing it carried is lost).
    return { set: {}, metadata: p.mapping.toTarget(merged).metadata ?? {}, marker };
  }
  const desired = p.mapping.toTarget(merged);
  const untouched = p.mapping.toTarget(withoutFlowingChanges(p, merged, timeMoves));
  const set: Record<string, unknown> = {};
  const mapped = p.mapping.fieldNames(p.item.kind);
  for (const f of WORK_ITEM_FIELD_NAMES) {
    // A target field the mapping leaves empty is the target's own business (e.g. Jira's default
    // priority on sub-tasks), unless it is the home of a synced tinyPM field that was cleared.
    if (desired[f] === undefined && !mapped.includes(f)) continue;
    const reached = !sameJson(normalizeField(f, desired[f]), normalizeField(f, untouched[f]));
    if (!reached) continue;
    if (!sameJson(normalizeField(f, desired[f]), normalizeField(f, p.targetItem[f])))
      set[f] = desired[f];
  }
  const metadata = desired.metadata ?? {};
  return {
    set: set,
    metadata:
      marker === undefined && sameJson(metadata, p.targetItem.metadata) ? undefined : metadata,
    ...(marker !== undefined && { marker }),
  };
}

/**
 * The merged item as it would be had no tinyPM change flowed to the target: every flowing field
 * (and the time entries, when they move) at the value the target holds now, in tinyPM terms.
 */
function withoutFlowingChanges(p: PlanUpdateInput, merged: WorkItem, timeMoves: boolean): WorkItem {
  const fromTarget: Partial<WorkItemFields> = p.mapping.toTinypm(p.targetItem);
  const flowing = [
    ...new Set([
      ...p.merge.toTarget,
      ...p.merge.conflicts.filter((c) => c.resolution === "tinypm").map((c) => c.field),
    ]),
  ];
  const timeEntries = timeMoves ? p.mapping.timeEntriesToTinypm(p.targetItem) : merged.timeEntries;
  return { ...merged, ...pick(fromTarget, flowing), timeEntries };
}
