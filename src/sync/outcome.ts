import type { ItemKind } from "../core/model.js";
import type { RunSummary } from "./events.js";
import { hasWrites, type PlanAction } from "./plan/plan-types.js";

/**
 * What became of one item in a run: the one answer the plan summary, the run summary, the report
 * rows, `--json`, `status`, `serve` and the exit code all derive from.
 * - `conflict`: a field is parked for a person (`conflicts resolve`), new or still open — even
 *   when the same update wrote other fields: the item needs someone, and the run exits 4;
 * - `failed`: an error parked the item (`tinypm-sync status`), among them an item tinyPM sent
 *   that cannot be read (a `skip` for `unreadable`: planned as failed, dry run or not);
 * - `kept`: a one-way `migrate` left a person's edits on the target for `sync`, writing nothing;
 * - `unchanged`: nothing to write (a base moved at most).
 */
export type ItemOutcome =
  "created" | "updated" | "adopted" | "deleted" | "conflict" | "failed" | "kept" | "unchanged";

/** The outcome of an action carried out without error (a dry run's answer for every action). */
export function plannedOutcome(action: PlanAction): ItemOutcome {
  switch (action.type) {
    case "create":
      return "created";
    case "adopt":
      return "adopted";
    case "delete":
      return "deleted";
    case "skip":
      return action.reason === "unreadable" ? "failed" : "unchanged";
    case "update":
      if (action.conflicts.some((c) => c.resolution === "parked")) return "conflict";
      if (hasWrites(action)) return "updated";
      return (action.keptOnTarget ?? []).length > 0 ? "kept" : "unchanged";
  }
}

/** The summary count an outcome adds to (architecture.md's `--json` summary). */
export function summaryKey(outcome: ItemOutcome): keyof RunSummary {
  switch (outcome) {
    case "created":
    case "updated":
    case "deleted":
    case "failed":
      return outcome;
    case "adopted":
      return "updated";
    case "conflict":
      return "conflicts";
    case "kept":
    case "unchanged":
      return "unchanged";
  }
}

/** Counts one item's outcome. */
export function count(summary: RunSummary, outcome: ItemOutcome): void {
  summary[summaryKey(outcome)]++;
}

/** `kind:id` of an item by either side's id: how events, failures and report rows are joined. */
export function itemKey(kind: ItemKind, id: string): string {
  return `${kind}:${id}`;
}

/** An action's item ids (its tinyPM id when it has one, its target id when it has one). */
export function actionIds(action: PlanAction): {
  tinypmId?: string | undefined;
  targetId?: string | undefined;
} {
  switch (action.type) {
    case "create":
      return action.toSide === "target"
        ? { tinypmId: action.source.id }
        : { targetId: action.source.id };
    case "update":
    case "delete":
      return { tinypmId: action.link.tinypmId, targetId: action.link.targetId };
    case "adopt":
      return { tinypmId: action.tinypmItem.id, targetId: action.targetItem.id };
    case "skip":
      return { tinypmId: action.tinypmId, targetId: action.targetId };
  }
}

/** The key an action's item is known by (tinyPM id first: a create to tinyPM has none yet). */
export function actionKey(action: PlanAction): string {
  const { tinypmId, targetId } = actionIds(action);
  return itemKey(action.kind, tinypmId ?? targetId ?? "");
}

/** Whether a run leaves items for a person: a parked failure or a conflict (exit 4). */
export function needsAttention(summary: RunSummary): boolean {
  return summary.failed > 0 || summary.conflicts > 0;
}

/** How a run that went to its end is journalled: `partial` (exit 4) when it left work, else `ok`. */
export function finishedOutcome(summary: RunSummary): "ok" | "partial" {
  return needsAttention(summary) ? "partial" : "ok";
}
