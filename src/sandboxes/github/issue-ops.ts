import { GithubError, notFound, validationFailed } from "./errors.js";
import {
  collaboratorLogin,
  ensureLabel,
  findIssue,
  findMilestone,
  MAX_ASSIGNEES,
  MAX_BODY,
  type IssueRecord,
  type StateReason,
  type Store,
} from "./store.js";

/** Shared issue rules used by several routes (create, update, import). */

export function issueOr404(store: Store, numberText: string | undefined): IssueRecord {
  const n = Number(numberText);
  const issue = Number.isInteger(n) ? findIssue(store, n) : undefined;
  if (issue) return issue;
  // GitHub tells a deleted issue (410) from one it does not show (404).
  if (store.removed.get(n) === "deleted") throw new GithubError(410, "This issue was deleted");
  throw notFound();
}

export function checkBodyLength(body: string | null | undefined, resource: string): void {
  if (body !== null && body !== undefined && body.length > MAX_BODY) {
    throw validationFailed({
      resource,
      code: "custom",
      field: "body",
      message: `body is too long (maximum is ${MAX_BODY} characters)`,
    });
  }
}

/** Milestone number → checked number; unknown → 422 like GitHub. */
export function checkMilestone(
  store: Store,
  n: number | null | undefined,
): number | null | undefined {
  if (n === undefined || n === null) return n;
  if (!findMilestone(store, n)) {
    throw validationFailed({ value: n, resource: "Issue", field: "milestone", code: "invalid" });
  }
  return n;
}

/**
 * Assignees given on create/update: unknown logins are refused with 422 (as GitHub does there);
 * more than 10 too. The assignees endpoint instead drops unknown users silently.
 */
export function checkAssignees(store: Store, logins: readonly string[]): string[] {
  const out: string[] = [];
  for (const login of logins) {
    const known = collaboratorLogin(store, login);
    if (known === undefined) {
      throw validationFailed({
        value: login,
        resource: "Issue",
        field: "assignees",
        code: "invalid",
      });
    }
    if (!out.includes(known)) out.push(known);
  }
  if (out.length > MAX_ASSIGNEES) {
    throw validationFailed({
      resource: "Issue",
      code: "custom",
      field: "assignees",
      message: `assignees cannot have more than ${MAX_ASSIGNEES} users`,
    });
  }
  return out;
}

/** Label names → label ids, creating missing labels (colour `ededed`), names keep their case. */
export function labelIds(store: Store, names: readonly string[]): number[] {
  const ids: number[] = [];
  for (const name of names) {
    if (name.trim() === "") {
      throw validationFailed({ value: name, resource: "Label", code: "invalid", field: "name" });
    }
    const id = ensureLabel(store, name).id;
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

const REASONS: readonly StateReason[] = ["completed", "not_planned", "duplicate", "reopened"];

/** Refuses an unknown reason, `reopened` on a closed issue, or a closing reason on an open one. */
export function checkStateReason(
  issue: IssueRecord,
  state: "open" | "closed" | undefined,
  reason: string | null | undefined,
): StateReason | undefined {
  if (reason === undefined || reason === null) return undefined;
  const target = state ?? issue.state;
  const bad =
    !REASONS.includes(reason as StateReason) ||
    (target === "closed" && reason === "reopened") ||
    (target === "open" && reason !== "reopened");
  if (bad) {
    throw validationFailed({
      resource: "Issue",
      code: "invalid",
      field: "state_reason",
      value: reason,
    });
  }
  return reason as StateReason;
}

/**
 * Applies `state` and a checked `state_reason`: closing sets `closed_at`/`closed_by` and a reason
 * (default completed), reopening clears them and sets `reopened`; a reason without a state
 * change only applies to a closed issue (changing why it was closed).
 */
export function applyState(
  store: Store,
  issue: IssueRecord,
  state: "open" | "closed" | undefined,
  why: StateReason | undefined,
  actor: string,
): void {
  const target = state ?? issue.state;
  if (target === issue.state) {
    if (target === "closed" && why !== undefined) issue.stateReason = why;
    return;
  }
  issue.state = target;
  if (target === "closed") {
    issue.stateReason = why ?? "completed";
    issue.closedAt = store.clock.now();
    issue.closedBy = actor;
  } else {
    issue.stateReason = "reopened";
    issue.closedAt = null;
    issue.closedBy = null;
  }
}

export function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
