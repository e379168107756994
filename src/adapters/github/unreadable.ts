import { PayloadInvalidError } from "../../core/errors.js";
import {
  itemOrUnreadable,
  type ItemIdentity as IssueIdentity,
  type OnUnreadable,
} from "../../core/unreadable-item.js";
import { parseIssueBody } from "./marker.js";

export type { IssueIdentity, OnUnreadable };

/**
 * The number, kind and title an issue's payload names, when it names a number at all (the kind as
 * the issue would read: its parent, else its marker's kind, else a story): an issue
 * that failed validation is parked under it. `undefined` when nothing tells which issue it is —
 * such an element cannot be parked and fails the listing.
 */
export function issueIdentity(raw: unknown): IssueIdentity | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.number !== "number" || !Number.isInteger(r.number) || r.number <= 0)
    return undefined;
  const parent = r.parent_issue_url;
  // As the issue would read (map.ts): a sub-issue is a task; else its marker's kind, if any.
  const marked =
    typeof r.body === "string" ? parseIssueBody(r.body).block?.marker.originKind : undefined;
  return {
    kind: typeof parent === "string" && parent !== "" ? "task" : (marked ?? "story"),
    id: String(r.number),
    ...(typeof r.title === "string" && { title: r.title }),
  };
}

/**
 * One issue's own error as a person reads it: which issue, what is wrong and where. The zod
 * error of a listing names the listing; this names the issue.
 */
export function issueError(who: IssueIdentity, error: PayloadInvalidError): PayloadInvalidError {
  const what = error.message.replace(/^GitHub (\S+) answered an unexpected payload: /, "");
  return new PayloadInvalidError(
    `GitHub issue #${who.id}${who.title === undefined ? "" : ` "${who.title}"`} cannot be read ` +
      `(${error.operation}): ${what}`,
    { system: "github", operation: error.operation, id: who.id, status: error.status },
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
