import {
  WORK_ITEM_FIELD_NAMES,
  type JsonValue,
  type Marker,
  type RichPiece,
  type WorkItem,
  type WorkItemFieldName,
  type WorkItemFields,
} from "../../core/model.js";
import { jobMarker, markerStale } from "./marker.js";
import type { DescriptionComposition } from "../../mapping/description.js";
import { excerpt } from "../../mapping/rich-compose.js";
import { labelSpelling } from "./label-case.js";
import { decideDescription, visible, type DescriptionDecision } from "./plan-description.js";
import type { DescriptionNote, FieldChange, RichOutcome, UpdateAction } from "./plan-types.js";
import {
  commentKey,
  normalizeField,
  sameJson,
  timeEntryKey,
  type Snapshot,
  tinypmSnapshot,
} from "./snapshot.js";
import type { PlanUpdateInput } from "./plan-input.js";

/**
 * Turns a merge into writes: tinyPM gets the target's values of the fields that flow to it; the
 * target gets the mapped draft of the merged item, reduced to the target fields that differ
 * from what it holds (fields in a parked conflict keep the target's own value).
 */
export function planUpdate(input: PlanUpdateInput): UpdateAction {
  const decision = decideDescription(input, input.richText ?? "merge", input.resolvedDescription);
  const p: PlanUpdateInput = { ...input, merge: decision.merge };
  const fromTarget: Partial<WorkItemFields> = p.mapping.toTinypm(p.targetItem);
  const tinypmSet: Record<string, unknown> = {};
  for (const f of p.merge.toTinypm) tinypmSet[f] = fromTarget[f];
  // The target's labels keep tinyPM's spelling of its tags (GitHub: one label whatever its case).
  if (Array.isArray(tinypmSet.labels))
    tinypmSet.labels = labelSpelling(
      p.mapping,
      p.item.labels,
      p.link.baseTinypm.fields.labels,
    ).labels(tinypmSet.labels as string[]);
  // Fields parked whole keep the target's value; a description parked in units is written but
  // for them (and is not agreed either way: left out of the marker).
  const parkedAll = p.merge.conflicts.filter((c) => c.resolution === "parked");
  const parked = parkedAll.filter((c) => c.units === undefined).map((c) => c.field);
  // Fields kept on the target (a one-way `migrate` of a two-way job) keep the target's value too.
  const kept = p.merge.keptOnTarget ?? [];
  const targetTime = p.mapping.timeEntriesToTinypm(p.targetItem);
  const timeToTinypm = targetTime.filter((e) => p.merge.timeToTinypm.includes(timeEntryKey(e)));
  const merged: WorkItem = {
    ...p.item,
    ...(tinypmSet as Partial<WorkItemFields>),
    ...pick(fromTarget, [...parked, ...kept]),
    timeEntries: mergeTime(p.item, timeToTinypm),
  };
  const timeSelected0 = p.merge.toTinypm.length + p.merge.toTarget.length;
  const target = targetWrites(
    p,
    merged,
    parkedAll.map((c) => c.field),
    timeSelected0,
    decision.partial !== undefined,
  );
  const notes = descriptionNotes(p, merged, tinypmSet, target, decision.unplaceable);
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
    targetRichDescription: target.pieces,
    descriptions: notes,
    commentsToTarget: p.item.comments
      .filter((c) => p.merge.commentsToTarget.includes(commentKey(c)))
      .map((c) => p.mapping.commentToTarget(c)),
    commentsToTinypm: p.targetItem.comments
      .map((c) => p.mapping.commentToTinypm(c))
      .filter((c) => p.merge.commentsToTinypm.includes(commentKey(c))),
    timeToTarget: p.mapping.timeEntriesToTarget({ ...p.item, timeEntries: timeSelected }),
    timeToTinypm,
    ...(kept.length > 0 && { keptOnTarget: kept }),
    ...((p.merge.timeKeptOnTarget?.length ?? 0) > 0 && {
      timeKeptOnTarget: p.merge.timeKeptOnTarget,
    }),
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
  parkUnits: boolean,
): TargetWrites {
  const timeMoves = p.merge.timeToTinypm.length > 0 || p.merge.timeToTarget.length > 0;
  const needed = p.merge.toTarget.length > 0 || timeMoves;
  const resolvedForTarget = p.merge.conflicts.some((c) => c.resolution === "tinypm");
  // A field kept on the target is agreed at tinyPM's value (its base); one that won a conflict
  // there is not agreed at all.
  const kept = p.merge.keptOnTarget ?? [];
  const inConflict = new Set(p.merge.conflicts.map((c) => c.field));
  const keptAlone = kept.filter((f) => !inConflict.has(f));
  const wanted = jobMarker({
    job: p.job,
    mapping: p.mapping,
    kind: p.item.kind,
    origin: p.link.origin,
    originId: p.link.origin === "tinypm" ? p.link.tinypmId : p.link.targetId,
    tinypmId: p.link.tinypmId,
    agreed: tinypmSnapshot(p.mapping, { ...merged, ...pick(p.item, keptAlone) }),
    parked: [...parked, ...kept.filter((f) => inConflict.has(f))],
    targetHeld: heldAfter(p, merged, kept),
  });
  const written = needed || resolvedForTarget || fieldFlows > 0 || p.repairMarker === true;
  const stale = p.markerMissing === true || markerStale(p.targetItem.marker, wanted);
  const marker = written && stale ? wanted : undefined;
  const desired = p.mapping.toTarget(merged);
  // Labels follow values: whatever moved, and whichever way, the target ends up carrying exactly
  // the labels of the values it holds (a status closed by hand rewrites its acceptance label).
  const follows = (labels: readonly string[]): string[] | undefined =>
    p.job.direction === "to-tinypm"
      ? undefined
      : p.mapping.followLabels(p.item.kind, desired.labels, labels);
  if (!needed && !resolvedForTarget) {
    const labels = follows(p.targetItem.labels);
    const set = labels === undefined ? {} : { labels };
    if (marker === undefined) return { set, metadata: undefined };
    // Only the block is written: with the metadata the merged item gives (a missing block's
    // values were filled from tinyPM, so nothing it carried is lost).
    return { set, metadata: desired.metadata ?? {}, marker };
  }
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
  const labels = follows((set.labels as readonly string[] | undefined) ?? p.targetItem.labels);
  if (labels !== undefined) set.labels = labels;
  const metadata = desired.metadata ?? {};
  const composed =
    "description" in set
      ? p.mapping.composeDescription(p.targetItem, merged, parkUnits)
      : undefined;
  if (composed !== undefined) {
    // Blocks the edit did not touch keep the target's own form; only changed ones are new.
    set.description = composed.text;
    if (
      sameJson(
        normalizeField("description", composed.text),
        normalizeField("description", p.targetItem.description),
      )
    )
      delete set.description;
  }
  return {
    set: set,
    metadata:
      marker === undefined && sameJson(metadata, p.targetItem.metadata) ? undefined : metadata,
    ...(marker !== undefined && { marker }),
    pieces: "description" in set ? composed?.pieces : undefined,
    composition: "description" in set ? composed : undefined,
  };
}

/**
 * What the target will hold after this update, in tinyPM terms, as far as the plan can tell: the
 * fields that flow to it at their merged value, every other field as it holds it now (its own
 * default or normalisation of an agreed value stays, and the marker says so). A field kept on the
 * target (a person's edit a migrate rerun leaves for a later sync to carry) keeps the link's
 * target base: the edit is still one after a lost state. Apply checks the written fields against
 * the service's answer and corrects the marker when they differ.
 */
function heldAfter(
  p: PlanUpdateInput,
  merged: WorkItem,
  kept: readonly WorkItemFieldName[],
): Snapshot {
  const agreed = tinypmSnapshot(p.mapping, merged);
  const flowing = new Set<string>([
    ...p.merge.toTarget,
    ...p.merge.conflicts.filter((c) => c.resolution === "tinypm").map((c) => c.field),
  ]);
  const keptHere = new Set<string>(kept);
  const fields: Record<string, JsonValue> = {};
  for (const name of p.mapping.fieldNames(p.item.kind)) {
    const v = flowing.has(name)
      ? agreed.fields[name]
      : keptHere.has(name)
        ? p.link.baseTarget.fields[name]
        : p.g.fields[name];
    if (v !== undefined) fields[name] = v;
  }
  return { ...p.g, fields };
}

interface TargetWrites {
  readonly set: Partial<WorkItemFields>;
  readonly metadata: Readonly<Record<string, JsonValue>> | undefined;
  readonly marker?: Marker | undefined;
  readonly pieces?: readonly RichPiece[] | undefined;
  readonly composition?: DescriptionComposition | undefined;
}

/** The descriptions written (or parked), with what happens to the target's rich content. */
function descriptionNotes(
  p: PlanUpdateInput,
  merged: WorkItem,
  tinypmSet: Record<string, unknown>,
  target: TargetWrites,
  unplaceable: DescriptionDecision["unplaceable"],
): DescriptionNote[] {
  const notes: DescriptionNote[] = [];
  const targetBefore = visible(p.g.fields.description);
  const tinypmAfter = visible(normalizeField("description", merged.description));
  const richOf = (c: DescriptionComposition, outcome: RichOutcome): DescriptionNote["rich"] => ({
    outcome,
    kept: c.kept,
    rewritten: c.rewritten,
    removed: c.removed,
    lost: c.lost,
  });
  if ("description" in target.set) {
    const c = target.composition;
    const outcome = unplaceable?.outcome === "flattened" ? "flattened" : "kept";
    // Written but for the parked units: the note names them (what they would lose).
    const partly: DescriptionNote["rich"] =
      c !== undefined && c.parked.length > 0
        ? {
            outcome: "parked",
            kept: c.kept,
            rewritten: c.rewritten,
            removed: c.removed,
            written: true,
            lost: c.parked.map((u) => ({
              excerpt: excerpt(u.target),
              what: u.what,
              where: u.where,
            })),
          }
        : undefined;
    notes.push({
      toSide: "target",
      before: targetBefore,
      after: tinypmAfter,
      rich: partly ?? (c === undefined ? undefined : richOf(c, outcome)),
    });
  } else if (unplaceable !== undefined) {
    notes.push({
      toSide: "target",
      before: targetBefore,
      after: visible(p.t.fields.description),
      rich: richOf(unplaceable.composition, unplaceable.outcome),
    });
  }
  if ("description" in tinypmSet) {
    notes.push({
      toSide: "tinypm",
      before: visible(p.t.fields.description),
      after: visible(normalizeField("description", tinypmSet.description)),
    });
  }
  return notes;
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
