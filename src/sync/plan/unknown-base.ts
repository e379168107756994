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

export function isUnknownBase(value: JsonValue | undefined): boolean {
  return value !== undefined && sameJson(value, UNKNOWN_BASE);
}

/** A base value as conflicts and reports show it (the unknown base as a sentence). */
export function shownBase(value: JsonValue | undefined): JsonValue | undefined {
  return isUnknownBase(value) ? UNKNOWN_BASE_LABEL : value;
}
