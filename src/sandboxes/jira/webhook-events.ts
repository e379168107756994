import { renderComment, renderSprint, renderUser, renderWorklog } from "./render.js";
import { parseFieldSelection, renderIssue } from "./render-issue.js";
import type { Account } from "./site.js";
import type {
  CommentRecord,
  IssueRecord,
  JiraStore,
  SprintRecord,
  WorklogRecord,
} from "./store.js";
import { issueChangelog, type ChangelogItem } from "./webhook-changelog.js";

/** The issues and sprints of the sandbox at one moment (deep copies). */
export interface StoreSnapshot {
  readonly issues: ReadonlyMap<number, IssueRecord>;
  readonly sprints: ReadonlyMap<number, SprintRecord>;
}

/** One webhook Jira Cloud would send: its event, delivery lane and payload. */
export interface JiraEvent {
  readonly event: string;
  /** `Primary` for the change itself, `Secondary` for its fallout (a deleted issue's comments). */
  readonly flow: "Primary" | "Secondary";
  readonly payload: Record<string, unknown>;
}

export function snapshotStore(store: JiraStore): StoreSnapshot {
  return {
    issues: new Map(store.issues().map((i) => [i.id, structuredClone(i)])),
    sprints: new Map(store.sprints().map((s) => [s.id, { ...s }])),
  };
}

const ALL = parseFieldSelection("*all", "*all");
/** The issue summary Jira puts in comment events. */
const BRIEF = parseFieldSelection("summary,issuetype,project,assignee,priority,status", "");

const changed = <T extends { updated: number }>(a: T, b: T, body: (x: T) => unknown): boolean =>
  a.updated !== b.updated || JSON.stringify(body(a)) !== JSON.stringify(body(b));

interface Diff<T> {
  readonly added: T[];
  readonly updated: T[];
  readonly removed: T[];
}

function diffById<T extends { id: number; updated: number }>(
  before: readonly T[],
  after: readonly T[],
  body: (x: T) => unknown,
): Diff<T> {
  const was = new Map(before.map((x) => [x.id, x]));
  const is = new Set(after.map((x) => x.id));
  const added: T[] = [];
  const updated: T[] = [];
  for (const x of after) {
    const old = was.get(x.id);
    if (old === undefined) added.push(x);
    else if (changed(old, x, body)) updated.push(x);
  }
  return { added, updated, removed: before.filter((x) => !is.has(x.id)) };
}

/**
 * Every webhook Jira Cloud sends for what changed between `before` and the store now, in the
 * order Jira raises them: sprint events, then per issue `jira:issue_created|deleted`, comment
 * and worklog events each followed by the `jira:issue_updated` they cause, then the field
 * changes as one `jira:issue_updated` with its changelog.
 */
export function eventsSince(
  store: JiraStore,
  origin: string,
  before: StoreSnapshot,
  actor: Account,
  nextChangelogId: () => number,
): JiraEvent[] {
  const timestamp = Date.now();
  const user = renderUser(origin, actor);
  const events: JiraEvent[] = [];
  const emit = (event: string, body: Record<string, unknown>, flow: JiraEvent["flow"]): void => {
    events.push({ event, flow, payload: { timestamp, webhookEvent: event, ...body } });
  };
  sprintEvents(store, origin, before, emit);
  const full = (i: IssueRecord): unknown => renderIssue(origin, store, i, { fields: ALL });
  const brief = (i: IssueRecord): unknown => renderIssue(origin, store, i, { fields: BRIEF });
  const issueUpdated = (
    i: IssueRecord,
    type: string,
    items: readonly ChangelogItem[],
    extra: Record<string, unknown> = {},
  ): void => {
    const changelog =
      items.length === 0 ? {} : { changelog: { id: String(nextChangelogId()), items } };
    emit(
      "jira:issue_updated",
      { issue_event_type_name: type, user, issue: full(i), ...changelog, ...extra },
      "Primary",
    );
  };
  const now = new Map(store.issues().map((i) => [i.id, i]));
  for (const issue of now.values()) {
    const old = before.issues.get(issue.id);
    if (old === undefined) {
      emit(
        "jira:issue_created",
        { issue_event_type_name: "issue_created", user, issue: full(issue) },
        "Primary",
      );
      continue;
    }
    const comments = diffById<CommentRecord>(old.comments, issue.comments, (c) => c.body);
    const commentEvent = (
      c: CommentRecord,
      event: string,
      type: string,
      from: IssueRecord,
    ): void => {
      const comment = renderComment(origin, store.site, from, c);
      emit(event, { comment, issue: brief(issue) }, "Primary");
      issueUpdated(issue, type, [], { comment });
    };
    for (const c of comments.added) commentEvent(c, "comment_created", "issue_commented", issue);
    for (const c of comments.updated)
      commentEvent(c, "comment_updated", "issue_comment_edited", issue);
    for (const c of comments.removed)
      commentEvent(c, "comment_deleted", "issue_comment_deleted", old);
    const worklogs = diffById<WorklogRecord>(old.worklogs, issue.worklogs, (w) => [
      w.timeSpentSeconds,
      w.started,
      w.comment,
    ]);
    const items = issueChangelog(store, old, issue);
    const timeItems = items.filter((x) => x.field === "timespent");
    const worklogEvent = (
      w: WorklogRecord,
      event: string,
      type: string,
      from: IssueRecord,
    ): void => {
      emit(event, { worklog: renderWorklog(origin, store.site, from, w) }, "Primary");
      issueUpdated(issue, type, timeItems);
    };
    for (const w of worklogs.added) worklogEvent(w, "worklog_created", "issue_work_logged", issue);
    for (const w of worklogs.updated)
      worklogEvent(w, "worklog_updated", "issue_worklog_updated", issue);
    for (const w of worklogs.removed)
      worklogEvent(w, "worklog_deleted", "issue_worklog_deleted", old);
    const fieldItems = items.filter((x) => x.field !== "timespent");
    if (fieldItems.length === 0) continue;
    const type = fieldItems.some((x) => x.field === "status")
      ? "issue_generic"
      : fieldItems.every((x) => x.field === "assignee")
        ? "issue_assigned"
        : "issue_updated";
    issueUpdated(issue, type, fieldItems);
  }
  for (const [id, old] of before.issues) {
    if (now.has(id)) continue;
    emit(
      "jira:issue_deleted",
      { issue_event_type_name: "issue_deleted", user, issue: full(old) },
      "Primary",
    );
    for (const c of old.comments)
      emit(
        "comment_deleted",
        { comment: renderComment(origin, store.site, old, c), issue: brief(old) },
        "Secondary",
      );
  }
  return events;
}

function sprintEvents(
  store: JiraStore,
  origin: string,
  before: StoreSnapshot,
  emit: (event: string, body: Record<string, unknown>, flow: JiraEvent["flow"]) => void,
): void {
  const now = new Map(store.sprints().map((s) => [s.id, s]));
  for (const s of now.values()) {
    const old = before.sprints.get(s.id);
    const sprint = renderSprint(origin, s);
    if (old === undefined) {
      emit("sprint_created", { sprint }, "Primary");
      continue;
    }
    if (JSON.stringify(old) === JSON.stringify(s)) continue;
    if (old.state === "future" && s.state === "active")
      emit("sprint_started", { sprint }, "Primary");
    else if (old.state !== "closed" && s.state === "closed")
      emit("sprint_closed", { sprint }, "Primary");
    else emit("sprint_updated", { sprint, oldValue: renderSprint(origin, old) }, "Primary");
  }
  for (const [id, old] of before.sprints)
    if (!now.has(id)) emit("sprint_deleted", { sprint: renderSprint(origin, old) }, "Primary");
}
