import { markerOwner } from "../../core/identity.js";
import type { JsonValue, WorkItem } from "../../core/model.js";
import type { CompiledMapping } from "../../mapping/compile.js";
import type { VerifyDifference, VerifyField, VerifyUnlinked } from "../../report/verify-types.js";
import type { LinkView } from "../plan/plan-types.js";
import { sameJson, targetSnapshot, tinypmSnapshot, type Snapshot } from "../plan/snapshot.js";

/** What `compareSides` found. */
export interface Comparison {
  readonly pairs: number;
  readonly equal: number;
  readonly differences: VerifyDifference[];
  readonly unlinked: { tinypm: VerifyUnlinked[]; target: VerifyUnlinked[] };
}

/**
 * Compares every linked pair field by field, in tinyPM terms: the target item is mapped back
 * through the mapping's inverse (lossless: what the target cannot hold natively comes from its
 * hidden block), as the engine compares sides with their bases. Comments and time entries are
 * compared by their keys (time and text; user and day). A link kept for an item deleted on one
 * side is no pair. Pure.
 */
export function compareSides(o: {
  readonly mapping: CompiledMapping;
  /** The job, for telling its own target items from another job's (markers). */
  readonly job: { readonly name: string; readonly instance?: string; readonly project?: string };
  readonly tinypmItems: readonly WorkItem[];
  /** Linked target items without their hidden block already carry the state's copy of it. */
  readonly targetItems: readonly WorkItem[];
  readonly links: readonly LinkView[];
}): Comparison {
  const tinypm = byKey(o.tinypmItems);
  const target = byKey(o.targetItems);
  const linkedTinypm = new Set<string>();
  const linkedTarget = new Set<string>();
  const differences: VerifyDifference[] = [];
  let pairs = 0;
  for (const link of o.links) {
    linkedTinypm.add(`${link.kind}:${link.tinypmId}`);
    linkedTarget.add(`${link.kind}:${link.targetId}`);
    if (link.baseTinypm.deleted === true || link.baseTarget.deleted === true) continue;
    pairs += 1;
    const t = tinypm.get(`${link.kind}:${link.tinypmId}`);
    const g = target.get(`${link.kind}:${link.targetId}`);
    const fields =
      t === undefined || g === undefined
        ? [{ field: "exists", tinypm: t !== undefined, target: g !== undefined }]
        : fieldDifferences(
            tinypmSnapshot(o.mapping, t),
            targetSnapshot(o.mapping, g),
            link.baseTinypm,
            link.baseTarget,
          );
    if (fields.length === 0) continue;
    differences.push({
      kind: link.kind,
      tinypmId: link.tinypmId,
      targetId: link.targetId,
      title: t?.title ?? g?.title ?? "",
      ...(g?.url === undefined ? {} : { url: g.url }),
      fields,
    });
  }
  const unlinkedTinypm = o.tinypmItems.filter((i) => !linkedTinypm.has(`${i.kind}:${i.id}`));
  // Another job's or another tinyPM's items share the target: not this job's to link.
  const unlinkedTarget = o.targetItems.filter(
    (i) => !linkedTarget.has(`${i.kind}:${i.id}`) && markerOwner(i.marker, o.job) !== "foreign",
  );
  return {
    pairs,
    equal: pairs - differences.length,
    differences,
    unlinked: { tinypm: unlinkedTinypm.map(unlinked), target: unlinkedTarget.map(unlinked) },
  };
}

/**
 * The fields whose values differ, in the order the snapshots name them, then comments and time
 * entries. A pair of values the last sync recorded as its base on both sides is in step even
 * where the mapping cannot make them equal (a priority Jira gives every task, which tinyPM's
 * tasks cannot hold): what differs is what moved since, on either side, and was not carried over.
 */
export function fieldDifferences(
  t: Snapshot,
  g: Snapshot,
  baseT?: Snapshot,
  baseG?: Snapshot,
): VerifyField[] {
  const out: VerifyField[] = [];
  const inStep = (
    a: JsonValue | undefined,
    b: JsonValue | undefined,
    base: (s: Snapshot) => JsonValue | undefined,
  ): boolean =>
    sameJson(a, b) ||
    (baseT !== undefined &&
      baseG !== undefined &&
      sameJson(a, base(baseT)) &&
      sameJson(b, base(baseG)));
  const names = [...new Set([...Object.keys(t.fields), ...Object.keys(g.fields)])];
  for (const field of names) {
    const a = t.fields[field];
    const b = g.fields[field];
    if (!inStep(a, b, (s) => s.fields[field]))
      out.push({ field, tinypm: a ?? null, target: b ?? null });
  }
  if (!inStep([...t.comments], [...g.comments], (s) => [...s.comments]))
    out.push({ field: "comments", tinypm: [...t.comments], target: [...g.comments] });
  if (!inStep(t.timeEntries, g.timeEntries, (s) => s.timeEntries))
    out.push({ field: "timeEntries", tinypm: t.timeEntries, target: g.timeEntries });
  return out;
}

function byKey(items: readonly WorkItem[]): Map<string, WorkItem> {
  return new Map(items.map((i) => [`${i.kind}:${i.id}`, i]));
}

function unlinked(item: WorkItem): VerifyUnlinked {
  return {
    kind: item.kind,
    id: item.id,
    title: item.title,
    ...(item.url === undefined ? {} : { url: item.url }),
  };
}
