import type { JsonValue } from "../../core/model.js";
import type { CompiledMapping } from "../../mapping/compile.js";
import type { Snapshot } from "./snapshot.js";

/**
 * GitHub label names are case-insensitive: an issue given the tag `Backend` in a repository that
 * already has `backend` carries `backend`. Those are one label, so the target's labels are read in
 * tinyPM's spelling of the item's tags (its tags now, then as last synced): the pair compares
 * equal, and a label a person adds on the issue reaches tinyPM without recasing its other tags.
 * Jira labels are case-sensitive and are left as they are.
 */
export interface LabelSpelling {
  /** Labels (tinyPM terms) in tinyPM's spelling where one matches regardless of case. */
  labels(values: readonly string[]): string[];
  /** The snapshot with its `labels` field respelled. */
  snapshot(s: Snapshot): Snapshot;
}

const AS_IS: LabelSpelling = { labels: (v) => [...v], snapshot: (s) => s };

export function labelSpelling(
  mapping: CompiledMapping,
  ...tinypmLabels: readonly (JsonValue | readonly string[] | undefined)[]
): LabelSpelling {
  if (mapping.target !== "github") return AS_IS;
  const spelled = new Map<string, string>();
  for (const list of tinypmLabels)
    if (Array.isArray(list))
      for (const l of list)
        if (typeof l === "string" && !spelled.has(l.toLowerCase())) spelled.set(l.toLowerCase(), l);
  if (spelled.size === 0) return AS_IS;
  const labels = (values: readonly string[]): string[] => [
    ...new Set(values.map((v) => spelled.get(v.toLowerCase()) ?? v)),
  ];
  return {
    labels,
    snapshot(s) {
      const value = s.fields.labels;
      if (!Array.isArray(value)) return s;
      const next = labels(value.filter((v): v is string => typeof v === "string")).sort();
      return { ...s, fields: { ...s.fields, labels: next } };
    },
  };
}
