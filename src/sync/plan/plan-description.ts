import type { JsonValue } from "../../core/model.js";
import type { DescriptionComposition } from "../../mapping/description.js";
import type { FieldConflict, MergeResult, Side } from "./merge.js";
import type { RichTextPolicy, PlanUpdateInput } from "./plan-input.js";
import type { RichOutcome } from "./plan-types.js";
import { normalizeField, sameJson } from "./snapshot.js";
import { shownBase } from "./unknown-base.js";

export interface DescriptionDecision {
  readonly merge: MergeResult;
  /** Set when a description flowing to the target meets rich content it cannot place. */
  readonly unplaceable?:
    { readonly outcome: RichOutcome; readonly composition: DescriptionComposition } | undefined;
  /** `merge` with units parked: the description written but for them. */
  readonly partial?: DescriptionComposition | undefined;
}

/**
 * Decides a tinyPM description edit that cannot be placed on the target without losing rich
 * content, per the job's `richText` policy (a `conflicts resolve` decision overrides it):
 * `merge` writes every unit that can be placed and parks the ones that cannot as a conflict
 * naming them (the whole description when the change cannot be cut into units), `overwrite`
 * writes it (changed blocks as text), `keep-target` lets the target's description win (copied to
 * tinyPM when the direction allows).
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
    base: shownBase(p.link.baseTinypm.fields.description),
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
    case "merge": {
      // Every change that can be placed is written; only the units that cannot are parked.
      const partial = p.mapping.composeDescription(p.targetItem, p.item, true);
      if (partial?.lost.length === 0 && partial.parked.length > 0) {
        const units = partial.parked;
        const named = (side: "tinypm" | "target"): JsonValue =>
          Object.fromEntries(units.map((u) => [u.where, u[side]]));
        const parked: FieldConflict = {
          field: "description",
          base: named("target"),
          tinypm: named("tinypm"),
          target: named("target"),
          resolution: "parked",
          units,
        };
        // Nothing left to write (a rerun): the description is not written at all.
        const same = sameJson(
          normalizeField("description", partial.text),
          normalizeField("description", p.targetItem.description),
        );
        return {
          merge: { ...m, toTarget: same ? toTarget : m.toTarget, conflicts: [...others, parked] },
          unplaceable: { outcome: "parked", composition },
          partial: partial,
        };
      }
      return {
        merge: { ...m, toTarget, conflicts: [...others, conflict("parked")] },
        unplaceable: { outcome: "parked", composition },
      };
    }
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
