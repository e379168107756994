import type { BoardSpec } from "../../core/board.js";
import type { WorkItem, WorkItemFields, WorkItemPatch } from "../../core/model.js";
import { sameFieldValue, staleFields, type SameField } from "../../core/stale-fields.js";
import { boardFields, issueStatusFor, type BoardValues } from "./project-model.js";

/** The fields a board holds; the issue keeps the rest (and open/closed from the Status). */
export const BOARD_FIELDS = ["status", "priority", "estimate", "iteration"] as const;

/** The board's part of a set (with `all`, every board field, set or not: a create). */
export function boardPart(set: Partial<WorkItemFields>, all = false): Partial<WorkItemFields> {
  const out: Record<string, unknown> = {};
  for (const k of BOARD_FIELDS) if (all || Object.hasOwn(set, k)) out[k] = set[k];
  return out;
}

/**
 * The issue's part of a patch: the non-board fields, and the Status as open/closed. The base is
 * taken the same way, so the issue's stale-field check compares like with like.
 */
export function issuePart(patch: WorkItemPatch, spec: BoardSpec): WorkItemPatch {
  const strip = <T extends Partial<WorkItemFields>>(x: T): T =>
    Object.fromEntries(
      Object.entries(x).filter(([k]) => !(BOARD_FIELDS as readonly string[]).includes(k)),
    ) as T;
  // With milestones too, the issue's milestone follows the iteration (the board's is read back,
  // so the base has none to check).
  const set =
    spec.milestones === true && Object.hasOwn(patch.set, "iteration")
      ? { ...strip(patch.set), iteration: patch.set.iteration }
      : strip(patch.set);
  const status = patch.set.status;
  const withStatus = status === undefined ? set : { ...set, status: issueStatusFor(status, spec) };
  const base: WorkItem | undefined =
    patch.base === undefined
      ? undefined
      : { ...strip(patch.base), status: issueStatusFor(patch.base.status, spec) };
  return { ...patch, set: withStatus, base };
}

/** Board values compare as the board matches options: names ignore case. */
const sameOnBoard: SameField = (name, a, b) =>
  name === "status" || name === "priority"
    ? (a[name] ?? "").toLowerCase() === (b[name] ?? "").toLowerCase()
    : sameFieldValue(name, a, b);

/**
 * The board fields of `set` a person changed since the run read the item as `base`, given the
 * item's values now (none: no item, every board field empty but the Status, which then reads as
 * it did). A field already holding the value being written is no conflict (a retry). Pure.
 */
export function staleBoardFields(
  set: Partial<WorkItemFields>,
  base: WorkItem,
  now: BoardValues | undefined,
): string[] {
  const current = boardFields(now, now?.status ?? base.status);
  return staleFields(boardPart(set), base, current, sameOnBoard);
}
