import { parseTimestamp } from "./clock.js";
import { listedIssues } from "./consistency.js";
import { json, noContent, type Reply, type RequestContext, type RouteDef } from "./context.js";
import { invalidRequest, notFound, validationFailed } from "./errors.js";
import {
  objectBody,
  optEnum,
  optInteger,
  optNullableString,
  optString,
  optStringList,
  required,
  stringOrInteger,
  type Body,
} from "./input.js";
import {
  applyState,
  checkAssignees,
  checkBodyLength,
  checkMilestone,
  checkStateReason,
  issueOr404,
  labelIds,
} from "./issue-ops.js";
import { paginate } from "./paging.js";
import { renderIssue, repoApiUrl } from "./render.js";
import {
  created,
  findLabel,
  nextIssueNumber,
  touch,
  type IssueRecord,
  type Store,
} from "./store.js";

/** Issues: list (filters, sort, since, pages), get, create, update. */
export const issueRoutes: readonly RouteDef[] = [
  { method: "GET", pattern: "/repos/:owner/:repo/issues", handler: listIssues },
  { method: "GET", pattern: "/repositories/:id/issues", handler: listIssues },
  { method: "GET", pattern: "/repos/:owner/:repo/issues/:number", handler: getIssue },
  { method: "POST", pattern: "/repos/:owner/:repo/issues", handler: createIssue, creates: true },
  { method: "PATCH", pattern: "/repos/:owner/:repo/issues/:number", handler: updateIssue },
  { method: "PUT", pattern: "/repos/:owner/:repo/issues/:number/lock", handler: lockIssue },
  { method: "DELETE", pattern: "/repos/:owner/:repo/issues/:number/lock", handler: unlockIssue },
];

function listIssues(ctx: RequestContext): Reply {
  const { store, query } = ctx;
  if (ctx.params.id !== undefined && Number(ctx.params.id) !== store.repoId) throw notFound();
  const issues = sortIssues(listedIssues(store).filter(issueFilter(store, query)), query);
  const page = paginate(issues, query, `${store.origin}/repositories/${store.repoId}/issues`);
  const body = page.items.map((i) => renderIssue(store, i, ctx.apiVersion));
  return json(200, body, page.link === undefined ? {} : { link: page.link });
}

function invalidParam(field: string, value: string): Error {
  return validationFailed({ resource: "Issue", field, code: "invalid", value });
}

function issueFilter(store: Store, q: URLSearchParams): (i: IssueRecord) => boolean {
  const state = q.get("state") ?? "open";
  if (!["open", "closed", "all"].includes(state)) throw invalidParam("state", state);
  const sinceText = q.get("since");
  const since = sinceText === null ? undefined : parseTimestamp(sinceText);
  if (sinceText !== null && since === undefined) throw invalidParam("since", sinceText);
  const labels = (q.get("labels") ?? "")
    .split(",")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const wanted = labels.map((name) => findLabel(store, name)?.id ?? -1);
  const milestone = q.get("milestone");
  const assignee = q.get("assignee");
  const creator = q.get("creator");
  return (i) =>
    (state === "all" || i.state === state) &&
    (since === undefined || i.updatedAt >= Math.floor(since / 1000) * 1000) &&
    wanted.every((id) => i.labels.includes(id)) &&
    matchMilestone(i, milestone) &&
    matchAssignee(i, assignee) &&
    (creator === null || i.user.toLowerCase() === creator.toLowerCase());
}

function matchMilestone(i: IssueRecord, m: string | null): boolean {
  if (m === null) return true;
  if (m === "*") return i.milestone !== null;
  if (m === "none") return i.milestone === null;
  return i.milestone === Number(m);
}

function matchAssignee(i: IssueRecord, a: string | null): boolean {
  if (a === null) return true;
  if (a === "*") return i.assignees.length > 0;
  if (a === "none") return i.assignees.length === 0;
  return i.assignees.some((x) => x.toLowerCase() === a.toLowerCase());
}

function sortIssues(issues: IssueRecord[], q: URLSearchParams): IssueRecord[] {
  const sort = q.get("sort") ?? "created";
  const direction = q.get("direction") ?? "desc";
  if (!["created", "updated", "comments"].includes(sort)) throw invalidParam("sort", sort);
  if (!["asc", "desc"].includes(direction)) throw invalidParam("direction", direction);
  const key = (i: IssueRecord): number =>
    sort === "updated" ? i.updatedAt : sort === "comments" ? i.comments : i.createdAt;
  const sign = direction === "asc" ? 1 : -1;
  // Ties (same second) keep creation order, like GitHub's secondary ordering by id.
  return issues.sort((a, b) => sign * (key(a) - key(b) || a.number - b.number));
}

function getIssue(ctx: RequestContext): Reply {
  const issue = issueOr404(ctx.store, ctx.params.number);
  return json(200, renderIssue(ctx.store, issue, ctx.apiVersion), {
    "last-modified": new Date(issue.updatedAt).toUTCString(),
  });
}

/** The legacy singular `assignee` is gone from requests in API version 2026-03-10. */
function assigneesFrom(ctx: RequestContext, body: Body): string[] | undefined {
  const single = body.assignee;
  if (single !== undefined && ctx.apiVersion === "2026-03-10") {
    throw invalidRequest(`"assignee" is not a permitted key.`);
  }
  const list = optStringList(body, "assignees");
  const one = optNullableString(body, "assignee");
  if (list === undefined && one === undefined) return undefined;
  // `"assignee": ""` clears like null: how common clients (gh, PyGithub) remove the assignee.
  return [...(one === undefined || one === null || one === "" ? [] : [one]), ...(list ?? [])];
}

/** `milestone`: a number, null, or `""` — an empty string clears it as null does. */
function milestoneField(body: Body): number | null | undefined {
  return body.milestone === "" ? null : optInteger(body, "milestone");
}

function createIssue(ctx: RequestContext): Reply {
  const { store } = ctx;
  const b = objectBody(ctx.body);
  const title = required(b, "title", stringOrInteger);
  if (title.trim() === "")
    throw validationFailed({ resource: "Issue", code: "missing_field", field: "title" });
  const text = optNullableString(b, "body") ?? null;
  checkBodyLength(text, "Issue");
  const milestone = checkMilestone(store, milestoneField(b)) ?? null;
  const assignees = checkAssignees(store, assigneesFrom(ctx, b) ?? []);
  const labels = labelIds(store, optStringList(b, "labels") ?? []);
  const now = Math.floor(store.clock.now() / 1000) * 1000;
  const issue: IssueRecord = {
    id: store.nextId("issue"),
    number: nextIssueNumber(store),
    title,
    body: text,
    state: "open",
    stateReason: null,
    labels,
    assignees,
    milestone,
    user: ctx.user.login,
    createdAt: now,
    updatedAt: now,
    closedAt: null,
    closedBy: null,
    comments: 0,
    locked: false,
    lockReason: null,
    parentId: null,
    subIssues: [],
  };
  store.issues.push(issue);
  created(store, issue);
  return json(201, renderIssue(store, issue, ctx.apiVersion), {
    location: `${repoApiUrl(store)}/issues/${issue.number}`,
  });
}

function updateIssue(ctx: RequestContext): Reply {
  const { store } = ctx;
  const issue = issueOr404(store, ctx.params.number);
  const b = objectBody(ctx.body);
  // Validate everything first: a refused update changes nothing.
  const title = b.title === undefined ? undefined : stringOrInteger(b, "title");
  const text = optNullableString(b, "body");
  checkBodyLength(text, "Issue");
  const milestone =
    b.milestone === undefined ? undefined : (checkMilestone(store, milestoneField(b)) ?? null);
  const rawAssignees = assigneesFrom(ctx, b);
  const assignees = rawAssignees === undefined ? undefined : checkAssignees(store, rawAssignees);
  const labels = optStringList(b, "labels");
  const state = optString(b, "state");
  if (state !== undefined && state !== "open" && state !== "closed") {
    throw validationFailed({ resource: "Issue", code: "invalid", field: "state", value: state });
  }
  const reason = checkStateReason(issue, state, optNullableString(b, "state_reason"));
  const before = JSON.stringify(issue);
  if (title !== undefined) issue.title = title;
  if (text !== undefined) issue.body = text;
  if (milestone !== undefined) issue.milestone = milestone;
  if (assignees !== undefined) issue.assignees = assignees;
  if (labels !== undefined) issue.labels = labelIds(store, labels);
  applyState(store, issue, state, reason, ctx.user.login);
  if (JSON.stringify(issue) !== before) touch(store, issue);
  return json(200, renderIssue(store, issue, ctx.apiVersion));
}

const LOCK_REASONS = ["off-topic", "too heated", "resolved", "spam"] as const;

function lockIssue(ctx: RequestContext): Reply {
  const issue = issueOr404(ctx.store, ctx.params.number);
  const reason = optEnum(objectBody(ctx.body), "lock_reason", LOCK_REASONS, "Issue") ?? null;
  if (!issue.locked || issue.lockReason !== reason) {
    issue.locked = true;
    issue.lockReason = reason;
    touch(ctx.store, issue);
  }
  return noContent();
}

function unlockIssue(ctx: RequestContext): Reply {
  const issue = issueOr404(ctx.store, ctx.params.number);
  if (issue.locked) {
    issue.locked = false;
    issue.lockReason = null;
    touch(ctx.store, issue);
  }
  return noContent();
}
