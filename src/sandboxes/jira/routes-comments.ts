import type { Version3Models } from "jira.js";
import { adfProblem, type AdfDocument } from "./adf.js";
import {
  bodyObject,
  fieldErrors,
  intParam,
  ok,
  type RequestContext,
  type RouteDef,
  issueParam,
} from "./context.js";
import {
  addChild,
  deleteChild,
  findChild,
  getChild,
  pageWindow,
  type IssueChildren,
} from "./issue-children.js";
import { renderComment, renderWorklog } from "./render.js";
import type { CommentRecord, WorklogRecord } from "./store.js";

const API = "/rest/api/3";
const COMMENT_INVALID = "Comment body is not valid!";

const COMMENTS: IssueChildren<CommentRecord> = {
  plural: "comments",
  list: (issue) => issue.comments,
  replace: (issue, records) => {
    issue.comments = records;
  },
  limit: (ctx) => ctx.limits.maxCommentsPerIssue,
  missing: (id) => `Can not find a comment for the id: ${id}.`,
  render: (ctx, issue, c) => renderComment(ctx.origin, ctx.store.site, issue, c),
};

const WORKLOGS: IssueChildren<WorklogRecord> = {
  plural: "worklogs",
  list: (issue) => issue.worklogs,
  replace: (issue, records) => {
    issue.worklogs = records;
  },
  limit: (ctx) => ctx.limits.maxWorklogsPerIssue,
  missing: (id) => `Cannot find worklog with id: ${id}.`,
  render: (ctx, issue, w) => renderWorklog(ctx.origin, ctx.store.site, issue, w),
};

function commentBody(ctx: RequestContext): AdfDocument {
  const body = bodyObject(ctx).body;
  if (adfProblem(body) !== undefined) throw fieldErrors({ comment: COMMENT_INVALID });
  return body as AdfDocument;
}

function listComments(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const { startAt, maxResults } = pageWindow(ctx, 100);
  const sorted =
    ctx.query.get("orderBy") === "-created" ? [...issue.comments].reverse() : issue.comments;
  const page: Version3Models.PageOfComments = {
    startAt,
    maxResults,
    total: issue.comments.length,
    comments: sorted
      .slice(startAt, startAt + maxResults)
      .map((c) => renderComment(ctx.origin, ctx.store.site, issue, c)),
  };
  return ok(page);
}

function addComment(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const body = commentBody(ctx);
  return addChild(ctx, issue, COMMENTS, (now) => ({
    id: ctx.store.nextCommentId(),
    authorId: ctx.user.accountId,
    body,
    created: now,
    updated: now,
  }));
}

function editComment(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const comment = findChild(ctx, issue, COMMENTS);
  comment.body = commentBody(ctx);
  comment.updated = ctx.store.now();
  ctx.store.touch(issue);
  return ok(COMMENTS.render(ctx, issue, comment));
}

const STARTED = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3})([+-])(\d{2})(\d{2})$/;

/** Jira's worklog `started`: exactly `yyyy-MM-ddTHH:mm:ss.SSS+0000` (RFC 822 offset, no colon). */
function parseStarted(value: unknown): number | undefined {
  const m = typeof value === "string" ? STARTED.exec(value) : null;
  if (m === null) return undefined;
  const t = Date.parse(`${m[1] ?? ""}${m[2] ?? ""}${m[3] ?? ""}:${m[4] ?? ""}`);
  return Number.isNaN(t) ? undefined : t;
}

/** `3h 20m`, `1d`, `2w 1d` (8-hour days, 5-day weeks) → seconds. */
function parseTimeSpent(value: string): number | undefined {
  const unit = { w: 144_000, d: 28_800, h: 3600, m: 60 };
  if (!/^(\s*\d+(\.\d+)?[wdhm]\s*)+$/.test(value)) return undefined;
  let total = 0;
  for (const part of value.matchAll(/(\d+(?:\.\d+)?)([wdhm])/g)) {
    total += Number(part[1]) * unit[part[2] as keyof typeof unit];
  }
  return Math.round(total);
}

function worklogInput(
  ctx: RequestContext,
): Pick<WorklogRecord, "started" | "timeSpentSeconds" | "comment"> {
  const body = bodyObject(ctx);
  const errors: Record<string, string> = {};
  const started = parseStarted(body.started);
  if (started === undefined)
    errors.started =
      "Started time must be in the format yyyy-MM-dd'T'HH:mm:ss.SSSZ, e.g. 2021-01-17T12:34:00.000+0000.";
  const seconds =
    typeof body.timeSpentSeconds === "number"
      ? body.timeSpentSeconds
      : typeof body.timeSpent === "string"
        ? parseTimeSpent(body.timeSpent)
        : undefined;
  if (seconds === undefined || !Number.isInteger(seconds) || seconds <= 0)
    errors.timeLogged = "You must indicate the time spent working.";
  if (body.comment !== undefined && adfProblem(body.comment) !== undefined)
    errors.comment = COMMENT_INVALID;
  if (started === undefined || seconds === undefined || Object.keys(errors).length > 0)
    throw fieldErrors(errors);
  return { started, timeSpentSeconds: seconds, comment: body.comment as AdfDocument | undefined };
}

function listWorklogs(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const { startAt, maxResults } = pageWindow(ctx, 5000);
  const after = intParam(ctx, "startedAfter", 0, Number.MAX_SAFE_INTEGER);
  const before = intParam(ctx, "startedBefore", Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  const matching = issue.worklogs.filter((w) => w.started >= after && w.started < before);
  const page: Version3Models.PageOfWorklogs = {
    startAt,
    maxResults,
    total: matching.length,
    worklogs: matching
      .slice(startAt, startAt + maxResults)
      .map((w) => renderWorklog(ctx.origin, ctx.store.site, issue, w)),
  };
  return ok(page);
}

function addWorklog(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const input = worklogInput(ctx);
  return addChild(ctx, issue, WORKLOGS, (now) => ({
    id: ctx.store.nextWorklogId(),
    authorId: ctx.user.accountId,
    ...input,
    created: now,
    updated: now,
  }));
}

function editWorklog(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const worklog = findChild(ctx, issue, WORKLOGS);
  Object.assign(worklog, worklogInput(ctx), { updated: ctx.store.now() });
  ctx.store.touch(issue);
  return ok(WORKLOGS.render(ctx, issue, worklog));
}

const ISSUE = `${API}/issue/:issueIdOrKey`;

export const COMMENT_ROUTES: readonly RouteDef[] = [
  { method: "GET", pattern: `${ISSUE}/comment`, handler: listComments },
  { method: "POST", pattern: `${ISSUE}/comment`, handler: addComment },
  { method: "GET", pattern: `${ISSUE}/comment/:id`, handler: getChild(COMMENTS) },
  { method: "PUT", pattern: `${ISSUE}/comment/:id`, handler: editComment },
  { method: "DELETE", pattern: `${ISSUE}/comment/:id`, handler: deleteChild(COMMENTS) },
  { method: "GET", pattern: `${ISSUE}/worklog`, handler: listWorklogs },
  { method: "POST", pattern: `${ISSUE}/worklog`, handler: addWorklog },
  { method: "GET", pattern: `${ISSUE}/worklog/:id`, handler: getChild(WORKLOGS) },
  { method: "PUT", pattern: `${ISSUE}/worklog/:id`, handler: editWorklog },
  { method: "DELETE", pattern: `${ISSUE}/worklog/:id`, handler: deleteChild(WORKLOGS) },
];
