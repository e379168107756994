import { PayloadInvalidError } from "../../core/errors.js";
import {
  itemOrUnreadable,
  type ItemIdentity as IssueIdentity,
  type OnUnreadable,
} from "../../core/unreadable-item.js";

export type { IssueIdentity, OnUnreadable };

/**
 * The key, kind and summary an issue's payload names, when it names a key at all: an issue that
 * failed validation is parked under it. `undefined` when nothing tells which issue it is — such
 * an element cannot be parked and fails the search.
 */
export function issueIdentity(raw: unknown): IssueIdentity | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const r = raw as { key?: unknown; fields?: unknown };
  if (typeof r.key !== "string" || !/^[A-Z][A-Z0-9_]*-\d+$/.test(r.key)) return undefined;
  const f = (typeof r.fields === "object" && r.fields !== null ? r.fields : {}) as {
    summary?: unknown;
    issuetype?: { subtask?: unknown } | null;
  };
  return {
    kind: f.issuetype?.subtask === true ? "task" : "story",
    id: r.key,
    ...(typeof f.summary === "string" && { title: f.summary }),
  };
}

/**
 * One issue's own error as a person reads it: which issue, what is wrong and where (the request
 * and the field), rather than the client's words about an answer.
 */
export function issueError(who: IssueIdentity, error: PayloadInvalidError): PayloadInvalidError {
  const what = /with an unexpected payload \((.*)\)\.?$/s.exec(error.message)?.[1] ?? error.message;
  return new PayloadInvalidError(
    `Jira issue ${who.id}${who.title === undefined ? "" : ` "${who.title}"`} cannot be read ` +
      `(${error.operation}): ${what}`,
    { system: "jira", operation: error.operation, id: who.id, status: error.status },
    { hint: error.hint, cause: error },
  );
}

/** Reads one issue of a many-issue read: a payload of its own that fails validation parks it. */
export function issueOrUnreadable<T>(
  who: IssueIdentity | undefined,
  onUnreadable: OnUnreadable,
  read: () => T | Promise<T>,
): Promise<T | undefined> {
  return itemOrUnreadable(who, onUnreadable, read, issueError);
}
