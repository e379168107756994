import { markerOwner, valueDigest } from "../../core/identity.js";
import type { ItemKind, Marker, SystemName, WorkItem } from "../../core/model.js";
import type { CompiledMapping } from "../../mapping/compile.js";
import type { LinkRecord } from "../../state/store.js";
import { linkRecord } from "./links.js";
import { PARKED_DIGEST } from "./marker.js";
import type { LinkView } from "./plan-types.js";
import { sameJson, type Snapshot, targetSnapshot, tinypmSnapshot } from "./snapshot.js";
import type { JsonValue } from "../../core/model.js";
import type { PlanJob } from "./plan-input.js";
import { EDITED_BOTH_BASE } from "./unknown-base.js";

/** How a lost link was found again. */
export type RebuiltHow = "marker" | "content";

/** One link found again, ready to store. */
export interface RebuiltLink {
  readonly record: LinkRecord;
  readonly how: RebuiltHow;
  /** For content matches: `high` (title and parent or description agree), else `medium`. */
  readonly confidence?: "high" | "medium" | undefined;
  /** The target item's marker, when it had one (kept in the state's identity copy). */
  readonly marker?: Marker | undefined;
  readonly meta: WorkItem["metadata"];
}

/** A content match that named more than one candidate: parked, never guessed. */
export interface AmbiguousMatch {
  readonly kind: ItemKind;
  readonly targetIds: readonly string[];
  readonly tinypmIds: readonly string[];
  readonly title: string;
}

export interface RebuildResult {
  readonly links: readonly RebuiltLink[];
  readonly ambiguous: readonly AmbiguousMatch[];
  /** Target items carrying another job's or another tinyPM's marker. */
  readonly foreign: readonly WorkItem[];
}

const key = (kind: ItemKind, id: string): string => `${kind}:${id}`;

/**
 * Rebuilds the links the state does not hold (no state, an older state, a lost row) before the
 * plan, so that no item that already exists on both sides is created again:
 * 1. from markers: a target item carrying this job's marker names its tinyPM item (the origin's
 *    id for copies of tinyPM items, `tinypmId` for target-born ones);
 * 2. by content, only for a job that has marked items on the target (it ran before) — an item
 *    whose marker and link are both gone is matched on kind, title and parent; a unique match
 *    is linked with a confidence level, several candidates are parked.
 * Bases are rebuilt field by field from the marker's digests (tinyPM's base, and the target's
 * where it held another value); a field both sides edited since the digests is given a base
 * neither side holds (the merge makes it a conflict); a field with no digest takes the current
 * value of the side the tool wrote last (the copy's side: the target for items born in tinyPM,
 * tinyPM for items born on the target).
 */
export function rebuildLinks(o: {
  job: PlanJob;
  mapping: CompiledMapping;
  targetSystem: SystemName;
  tinypmItems: readonly WorkItem[];
  targetItems: readonly WorkItem[];
  links: readonly LinkView[];
  now: Date;
}): RebuildResult {
  const linkedTinypm = new Set(o.links.map((l) => key(l.kind, l.tinypmId)));
  const linkedTarget = new Set(o.links.map((l) => key(l.kind, l.targetId)));
  const tinypm = new Map(o.tinypmItems.map((i) => [key(i.kind, i.id), i]));
  const out: RebuiltLink[] = [];
  const foreign: WorkItem[] = [];
  const claim = (t: WorkItem, g: WorkItem, how: RebuiltHow, extra: Partial<RebuiltLink>): void => {
    linkedTinypm.add(key(t.kind, t.id));
    linkedTarget.add(key(g.kind, g.id));
    const origin: SystemName =
      g.marker !== undefined && g.marker.origin !== "tinypm" ? o.targetSystem : "tinypm";
    const base = rebuiltBases(o.mapping, t, g, origin === "tinypm" ? "target" : "tinypm");
    out.push({
      record: linkRecord({
        job: o.job.name,
        kind: t.kind,
        tinypmId: t.id,
        targetSystem: o.targetSystem,
        targetId: g.id,
        origin,
        parentTinypmId: t.parentId,
        baseTinypm: base.tinypm,
        baseTarget: base.target,
        now: o.now,
      }),
      how,
      marker: g.marker,
      meta: g.metadata,
      ...extra,
    });
  };

  let ours = 0;
  const unmarked: WorkItem[] = [];
  for (const g of o.targetItems) {
    const owner = markerOwner(g.marker, o.job);
    if (owner === "foreign") {
      foreign.push(g);
      continue;
    }
    if (owner === "none") {
      if (!linkedTarget.has(key(g.kind, g.id))) unmarked.push(g);
      continue;
    }
    ours++;
    if (linkedTarget.has(key(g.kind, g.id)) || g.marker === undefined) continue;
    const m = g.marker;
    const tinypmKey =
      m.origin === "tinypm"
        ? key(m.originKind, m.originId)
        : m.tinypmId === undefined
          ? undefined
          : key(g.kind, m.tinypmId);
    const t = tinypmKey === undefined ? undefined : tinypm.get(tinypmKey);
    if (t === undefined || linkedTinypm.has(tinypmKey ?? "")) continue;
    claim(t, g, "marker", {});
  }

  const ambiguous: AmbiguousMatch[] = [];
  // Content matching only where this job has been before: a first migration into a target that
  // holds other people's issues never links any of them.
  if (ours > 0 || o.links.length > 0) {
    const open = o.tinypmItems.filter((t) => !linkedTinypm.has(key(t.kind, t.id)));
    // Stories first, so that tasks can be matched under the stories just linked.
    for (const kind of ["story", "task"] as const) {
      const parentOf = parentIndex(o.links, out);
      const gs = unmarked.filter((g) => g.kind === kind && !linkedTarget.has(key(kind, g.id)));
      const ts = open.filter((t) => t.kind === kind && !linkedTinypm.has(key(kind, t.id)));
      const sameItem = (t: WorkItem, g: WorkItem): boolean =>
        o.mapping.toTinypm(g).title === t.title &&
        (kind === "story" || (g.parentId !== undefined && parentOf.get(g.parentId) === t.parentId));
      for (const g of gs) {
        const candidates = ts.filter((t) => sameItem(t, g));
        const first = candidates[0];
        if (first === undefined) continue;
        const rivals = gs.filter((x) => candidates.some((t) => sameItem(t, x)));
        if (candidates.length > 1 || rivals.length > 1) {
          const seen = ambiguous.some((a) => a.kind === kind && a.targetIds.includes(g.id));
          if (!seen)
            ambiguous.push({
              kind,
              title: first.title,
              targetIds: rivals.map((x) => x.id),
              tinypmIds: candidates.map((t) => t.id),
            });
          continue;
        }
        if (linkedTinypm.has(key(kind, first.id))) continue;
        const description = o.mapping.toTinypm(g).description ?? "";
        const confidence =
          kind === "task" || description === (first.description ?? "") ? "high" : "medium";
        claim(first, g, "content", { confidence });
      }
    }
  }
  return { links: out, ambiguous, foreign };
}

/** Target story id → tinyPM story id, from stored and rebuilt links. */
function parentIndex(
  links: readonly LinkView[],
  rebuilt: readonly RebuiltLink[],
): Map<string, string> {
  const out = new Map<string, string>();
  for (const l of links) if (l.kind === "story") out.set(l.targetId, l.tinypmId);
  for (const r of rebuilt)
    if (r.record.kind === "story") out.set(r.record.targetId, r.record.tinypmId);
  return out;
}

/**
 * The bases of a rebuilt link, in tinyPM terms: the link the state would have held. Per field:
 * equal values are both bases. Else, where the marker says what the target held at the tool's
 * last write (its `target` digests: a default or a normalisation of the target's own), each side
 * whose value still has its digest keeps it as its base, and a side edited since takes the other
 * side's base (so its value flows). Where the target held tinyPM's value (no target digest, or a
 * marker older than target digests), the `base` digest tells which side still holds the value
 * both had (the other was edited since). Neither side holds its digest's value: both were edited
 * since, to different values; both bases are `EDITED_BOTH_BASE` (no value a side can hold), so
 * the merge finds the field conflict a kept state would have — as for a field the marker names
 * in a parked conflict (`PARKED_DIGEST`) whose sides still differ. No digest at all (a marker older
 * than digests): the value of the side the tool wrote last (`writtenLast`) — nothing tells an
 * edit from a write there, and the copy's side is the one that held the write.
 * Comments and time entries: those both sides hold.
 */
export function rebuiltBases(
  mapping: CompiledMapping,
  t: WorkItem,
  g: WorkItem,
  writtenLast: "tinypm" | "target",
): { tinypm: Snapshot; target: Snapshot } {
  const ts = tinypmSnapshot(mapping, t);
  const gs = targetSnapshot(mapping, g);
  const digests = g.marker?.base ?? {};
  const targetDigests = g.marker?.target ?? {};
  const tinypmFields: Record<string, JsonValue> = {};
  const targetFields: Record<string, JsonValue> = {};
  for (const name of mapping.fieldNames(t.kind)) {
    const [tb, gb] = fieldBases(ts.fields[name], gs.fields[name], {
      digest: digests[name],
      targetDigest: targetDigests[name],
      writtenLast,
    });
    if (tb !== undefined) tinypmFields[name] = tb;
    if (gb !== undefined) targetFields[name] = gb;
  }
  const comments = ts.comments.filter((c) => gs.comments.includes(c));
  const timeEntries: Record<string, number> = {};
  for (const [k, h] of Object.entries(ts.timeEntries))
    if (gs.timeEntries[k] === h) timeEntries[k] = h;
  return {
    tinypm: { fields: tinypmFields, comments, timeEntries },
    target: { fields: targetFields, comments: [...comments], timeEntries: { ...timeEntries } },
  };
}

type Value = JsonValue | undefined;

/** One field's rebuilt bases: [tinyPM's, the target's]. */
function fieldBases(
  tv: Value,
  gv: Value,
  o: { digest?: string | undefined; targetDigest?: string | undefined; writtenLast: string },
): [Value, Value] {
  if (sameJson(tv, gv)) return [tv, tv];
  // A conflict parked at the tool's last write, still open: found again, not settled.
  if (o.digest === PARKED_DIGEST) return [EDITED_BOTH_BASE, EDITED_BOTH_BASE];
  // No digest (a marker older than digests): nothing tells an edit from the value written.
  if (o.digest === undefined) {
    const last = o.writtenLast === "target" ? gv : tv;
    return [last, last];
  }
  const tinypmKept = valueDigest(tv) === o.digest;
  const targetKept = valueDigest(gv) === (o.targetDigest ?? o.digest);
  if (tinypmKept && targetKept) return o.targetDigest === undefined ? [tv, tv] : [tv, gv];
  if (tinypmKept) return [tv, tv];
  if (targetKept) return [gv, gv];
  // Neither side holds what the tool last wrote: both were edited since (a conflict).
  return [EDITED_BOTH_BASE, EDITED_BOTH_BASE];
}
