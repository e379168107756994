import type { JsonValue } from "../../core/model.js";
import type { DescriptionComposition } from "../../mapping/description.js";
import type { FieldConflict, MergeResult, Side } from "./merge.js";
import type { RichTextPolicy, PlanUpdateInput } from "./plan-input.js";
import type { RichOutcome } from "./plan-types.js";

export interface DescriptionDecision {
  readonly merge: MergeResult;
  /** Set when a description flowing to the target meets rich content it cannot place. */
  readonly unplaceable?:
    { readonly outcome: RichOutcome; readonly composition: DescriptionComposition } | undefined;
}

/**
 * Decides a tinyPM description edit that cannot be placed on the target without losing rich
 * content, per the job's `richText` policy (a `conflicts resolve` decision overrides it):
 * `merge` parks it as a conflict, `overwrite` writes it (changed blocks as text), `keep-target`
 * lets the target's description win (copied to tinyPM when the direction allows).
 */
export function decideDescription(
  p: PlanUpdateInput,
  policy: RichTextPolicy,
  resolved: Side | undefined,
): DescriptionDecision {
  const m = p.merge;
  if (!m.toTarget.includes("description")) return { merge: m };
  const composition = p.mapping.composeDescription(p.targetItem, p.item);
  if (composition === undefined || composition.lost.length === 0) return { merge: m };
  const effective: RichTextPolicy =
    resolved === "tinypm" ? "overwrite" : resolved === "target" ? "keep-target" : policy;
  const others = m.conflicts.filter((c) => c.field !== "description");
  const conflict = (resolution: FieldConflict["resolution"]): FieldConflict => ({
    field: "description",
    base: p.link.baseTinypm.fields.description,
    tinypm: p.t.fields.description,
    target: p.g.fields.description,
    resolution,
  });
  // A decision taken with `conflicts resolve` is recorded as applied through its conflict entry.
  const decided = resolved === undefined ? others : [...others, conflict(resolved)];
  const toTarget = m.toTarget.filter((f) => f !== "description");
  switch (effective) {
    case "overwrite":
      return {
        merge: { ...m, conflicts: decided },
        unplaceable: { outcome: "flattened", composition },
      };
    case "merge":
      return {
        merge: { ...m, toTarget, conflicts: [...others, conflict("parked")] },
        unplaceable: { outcome: "parked", composition },
      };
    case "keep-target": {
      const toTinypm = p.canTinypm ? [...m.toTinypm, "description" as const] : m.toTinypm;
      return {
        merge: { ...m, toTarget, toTinypm, conflicts: decided },
        unplaceable: { outcome: "target-kept", composition },
      };
    }
  }
}

/** The visible text of a description value in a snapshot ("" for none). */
export function visible(value: JsonValue | undefined): string {
  return typeof value === "string" ? value : "";
}
