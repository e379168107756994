import type { JsonValue } from "../../core/model.js";
import { sameJson, snapshotFromJson, type Snapshot } from "../plan/snapshot.js";

/**
 * The fields of a created item a person changed since the run that created it: its snapshot now
 * against the base the run left (fields by name, then `comments`, `timeEntries`). Pure.
 */
export function changedSince(now: Snapshot, base: JsonValue): string[] {
  const then = snapshotFromJson(base);
  const names = [...new Set([...Object.keys(then.fields), ...Object.keys(now.fields)])];
  const out = names.filter((n) => !sameJson(now.fields[n], then.fields[n]));
  if (!sameJson([...now.comments], [...then.comments])) out.push("comments");
  if (!sameJson(now.timeEntries, then.timeEntries)) out.push("timeEntries");
  return out;
}
