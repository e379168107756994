import type { JsonValue } from "../../core/model.js";
import { sameJson } from "./snapshot.js";

/**
 * The base of a field whose last write was interrupted and cannot be told from a person's edit:
 * it equals no value a side can hold, so both sides read as changed and differing sides make a
 * conflict (decided by the policy) instead of a silent write over the person's edit.
 */
export const UNKNOWN_BASE: JsonValue = { "tinypm-sync": "unknown base: a write was interrupted" };

/** How an unknown base is shown in conflicts and reports. */
export const UNKNOWN_BASE_LABEL = "unknown: a write was interrupted";

/**
 * The base of a field of a link rebuilt without the state (or of a copy found again) whose
 * marker digest names a value neither side holds any more: both sides were edited since the
 * tool's last write. The digest says so but cannot give the value back; like `UNKNOWN_BASE` it
 * equals no value a side can hold, so the merge finds the conflict a kept state would have.
 */
export const EDITED_BOTH_BASE: JsonValue = {
  "tinypm-sync": "unknown base: both sides changed since the last sync",
};

/** How that base is shown in conflicts and reports. */
export const EDITED_BOTH_BASE_LABEL = "unknown: both sides changed since the last sync";

export function isUnknownBase(value: JsonValue | undefined): boolean {
  return (
    value !== undefined && (sameJson(value, UNKNOWN_BASE) || sameJson(value, EDITED_BOTH_BASE))
  );
}

/** A base value as conflicts and reports show it (an unknown base as a sentence). */
export function shownBase(value: JsonValue | undefined): JsonValue | undefined {
  if (value === undefined) return value;
  if (sameJson(value, UNKNOWN_BASE)) return UNKNOWN_BASE_LABEL;
  if (sameJson(value, EDITED_BOTH_BASE)) return EDITED_BOTH_BASE_LABEL;
  return value;
}
