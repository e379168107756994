import type { JsonValue, WorkItem, WorkItemFieldName } from "../../core/model.js";
import type { CompiledMapping } from "../../mapping/compile.js";
import { rebuiltBases } from "../plan/rebuild-links.js";
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
 * flows to tinyPM (taking the copy's value as the base would write tinyPM's value over it). A
 * field a later step of the create sets, and that differs, may simply not be written yet:
 * tinyPM's value flows. Without digests (an older marker), the copy is taken as written last,
 * so tinyPM's values flow.
 */
export function foundCopyBases(
  mapping: CompiledMapping,
  tinypmItem: WorkItem,
  copy: WorkItem,
): { tinypm: Snapshot; target: Snapshot } {
  const rebuilt = rebuiltBases(mapping, tinypmItem, copy, "target");
  const tinypm: Record<string, JsonValue> = { ...rebuilt.tinypm.fields };
  const target: Record<string, JsonValue> = { ...rebuilt.target.fields };
  const t = tinypmSnapshot(mapping, tinypmItem);
  const g = targetSnapshot(mapping, copy);
  for (const name of LATER_STEPS) {
    if (sameJson(t.fields[name], g.fields[name])) continue;
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
