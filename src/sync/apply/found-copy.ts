import { valueDigest } from "../../core/identity.js";
import type { JsonValue, WorkItem, WorkItemFieldName } from "../../core/model.js";
import type { CompiledMapping } from "../../mapping/compile.js";
import { rebuiltBases } from "../plan/rebuild-links.js";
import { UNKNOWN_BASE } from "../plan/unknown-base.js";
import { sameJson, targetSnapshot, tinypmSnapshot, type Snapshot } from "../plan/snapshot.js";

/**
 * Fields a target create may set in a call after the create itself (GitHub closes an issue with
 * a second call, Jira transitions it and moves it to its sprint): a copy found again after an
 * interruption may lack them for that reason alone.
 */
const LATER_STEPS: readonly WorkItemFieldName[] = ["status", "iteration"];

/**
 * The bases (tinyPM terms, per side) of a pair whose target copy was found again by its marker
 * after an interrupted create (pure), with no comments or time entries (the merge copies them).
 * The marker's digests name the values the create wrote, so per field, as for a rebuilt link:
 * equal sides agree; a copy that still holds what was written lets tinyPM's change since flow; a
 * copy that no longer holds it while tinyPM does was edited by a person since, and that edit
 * flows to tinyPM (taking the copy's value as the base would write tinyPM's value over it);
 * neither side holding it, both were edited since: a conflict (the job's policy decides). A
 * field a later step of the create sets, and that differs, may simply not be written yet:
 * tinyPM's value flows — unless `statuses` (every status the copy has held, from the target's
 * history) shows the copy once held the status the create wrote: the step was made and a person
 * changed the status after it (a reopened issue), so that change is an edit like any other, and
 * where tinyPM changed it too, its base is unknown (the job's policy decides). Without digests
 * (an older marker), the copy is taken as written last, so tinyPM's values flow.
 */
export function foundCopyBases(
  mapping: CompiledMapping,
  tinypmItem: WorkItem,
  copy: WorkItem,
  statuses?: readonly string[],
): { tinypm: Snapshot; target: Snapshot } {
  const rebuilt = rebuiltBases(mapping, tinypmItem, copy, "target");
  const tinypm: Record<string, JsonValue> = { ...rebuilt.tinypm.fields };
  const target: Record<string, JsonValue> = { ...rebuilt.target.fields };
  const t = tinypmSnapshot(mapping, tinypmItem);
  const g = targetSnapshot(mapping, copy);
  for (const name of LATER_STEPS) {
    if (sameJson(t.fields[name], g.fields[name])) continue;
    const written = copy.marker?.target?.[name] ?? copy.marker?.base?.[name];
    if (
      name === "status" &&
      written !== undefined &&
      heldWritten(mapping, copy, statuses, written)
    ) {
      // The step was made; a person changed the status since. tinyPM changed it too: unknown.
      if (valueDigest(t.fields[name]) !== copy.marker?.base?.[name])
        tinypm[name] = target[name] = UNKNOWN_BASE;
      continue;
    }
    const value = g.fields[name];
    Reflect.deleteProperty(tinypm, name);
    if (value === undefined) Reflect.deleteProperty(target, name);
    else target[name] = value;
  }
  return {
    tinypm: { fields: tinypm, comments: [], timeEntries: {} },
    target: { fields: target, comments: [], timeEntries: {} },
  };
}

/**
 * Whether the copy once held (before its current status) the status whose digest the create
 * wrote (`written`, tinyPM terms).
 */
function heldWritten(
  mapping: CompiledMapping,
  copy: WorkItem,
  statuses: readonly string[] | undefined,
  written: string,
): boolean {
  return (statuses ?? [])
    .slice(0, -1)
    .some(
      (status) =>
        valueDigest(targetSnapshot(mapping, { ...copy, status }).fields.status) === written,
    );
}

/**
 * The base of a pair whose tinyPM copy of a target item was found again after an interrupted
 * create (pure). tinyPM's create is one call, so a field where the sides differ was changed since
 * on one side. `sourceUnchanged`: the target item still maps to the very draft the create sent
 * (same hash as its intent), so the change is tinyPM's: the target's value is the base and
 * tinyPM's flows. Otherwise the change cannot be placed: such fields get an unknown base on both
 * sides, so the job's policy decides (a conflict under `manual`), never a silent overwrite.
 * `copyKept`: fields the copy still holds as the create sent them (the intent's anchor says so):
 * where the sides differ there, the change is the target's: tinyPM's value is the base, so the
 * target's flows. Returns the base and the fields the sides do not agree on.
 */
export function foundTinypmCopyBase(
  mapping: CompiledMapping,
  copy: WorkItem,
  source: WorkItem,
  sourceUnchanged: boolean,
  copyKept: ReadonlySet<WorkItemFieldName> = new Set(),
): { tinypm: Snapshot; target: Snapshot; differing: WorkItemFieldName[] } {
  const t = tinypmSnapshot(mapping, copy);
  const g = targetSnapshot(mapping, source);
  const fields: Record<string, JsonValue> = {};
  const differing: WorkItemFieldName[] = [];
  for (const name of mapping.fieldNames(copy.kind)) {
    const tv = t.fields[name];
    const gv = g.fields[name];
    if (sameJson(tv, gv)) {
      if (tv !== undefined) fields[name] = tv;
      continue;
    }
    differing.push(name);
    if (copyKept.has(name)) {
      if (tv !== undefined) fields[name] = tv;
    } else if (!sourceUnchanged) fields[name] = UNKNOWN_BASE;
    else if (gv !== undefined) fields[name] = gv;
  }
  const base: Snapshot = { fields, comments: [], timeEntries: {} };
  return { tinypm: base, target: base, differing };
}
