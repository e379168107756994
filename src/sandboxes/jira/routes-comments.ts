import type { Version3Models } from "jira.js";
import { adfProblem, type AdfDocument } from "./adf.js";
import {
  JiraHttpError,
  bodyObject,
  created,
  fieldErrors,
  intParam,
  noContent,
  notFound,
  ok,
  type RequestContext,
  type RouteDef,
  issueParam,
} from "./context.js";
import { renderComment, renderWorklog } from "./render.js";
import type { CommentRecord, IssueRecord, WorklogRecord } from "./store.js";

const API = "/rest/api/3";
const COMMENT_INVALID = "Comment body is not valid!";

function findComment(ctx: RequestContext, issue: IssueRecord): CommentRecord {
  const c = issue.comments.find((x) => String(x.id) === ctx.params.id);
  if (c === undefined) throw notFound(`Can not find a comment for the id: ${ctx.params.id ?? ""}.`);
  return c;
}

function commentBody(ctx: RequestContext): AdfDocument {
  const body = bodyObject(ctx).body;
  if (adfProblem(body) !== undefined) throw fieldErrors({ comment: COMMENT_INVALID });
  return body as AdfDocument;
}

function listComments(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const startAt = intParam(ctx, "startAt", 0, Number.MAX_SAFE_INTEGER);
  const maxResults = intParam(ctx, "maxResults", 100, 5000);
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
  if (issue.comments.length >= ctx.limits.maxCommentsPerIssue) {
    throw new JiraHttpError(413, [
      `The issue has reached the limit of ${ctx.limits.maxCommentsPerIssue} comments.`,
    ]);
  }
  const now = ctx.store.now();
  const comment: CommentRecord = {
    id: ctx.store.nextCommentId(),
    authorId: ctx.user.accountId,
    body,
    created: now,
    updated: now,
  };
  issue.comments.push(comment);
  ctx.store.touch(issue);
  return created(renderComment(ctx.origin, ctx.store.site, issue, comment));
}

function getComment(ctx: RequestContext) {
  const issue = issueParam(ctx);
  return ok(renderComment(ctx.origin, ctx.store.site, issue, findComment(ctx, issue)));
}

function editComment(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const comment = findComment(ctx, issue);
  comment.body = commentBody(ctx);
  comment.updated = ctx.store.now();
  ctx.store.touch(issue);
  return ok(renderComment(ctx.origin, ctx.store.site, issue, comment));
}

function deleteComment(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const comment = findComment(ctx, issue);
  issue.comments = issue.comments.filter((c) => c !== comment);
  ctx.store.touch(issue);
  return noContent();
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

function findWorklog(ctx: RequestContext, issue: IssueRecord): WorklogRecord {
  const w = issue.worklogs.find((x) => String(x.id) === ctx.params.id);
  if (w === undefined) throw notFound(`Cannot find worklog with id: ${ctx.params.id ?? ""}.`);
  return w;
}

function listWorklogs(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const startAt = intParam(ctx, "startAt", 0, Number.MAX_SAFE_INTEGER);
  const maxResults = intParam(ctx, "maxResults", 5000, 5000);
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
  if (issue.worklogs.length >= ctx.limits.maxWorklogsPerIssue) {
    throw new JiraHttpError(413, [
      `The issue has reached the limit of ${ctx.limits.maxWorklogsPerIssue} worklogs.`,
    ]);
  }
  const now = ctx.store.now();
  const worklog: WorklogRecord = {
    id: ctx.store.nextWorklogId(),
    authorId: ctx.user.accountId,
    ...input,
    created: now,
    updated: now,
  };
  issue.worklogs.push(worklog);
  ctx.store.touch(issue);
  return created(renderWorklog(ctx.origin, ctx.store.site, issue, worklog));
}

function getWorklog(ctx: RequestContext) {
  const issue = issueParam(ctx);
  return ok(renderWorklog(ctx.origin, ctx.store.site, issue, findWorklog(ctx, issue)));
}

function editWorklog(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const worklog = findWorklog(ctx, issue);
  Object.assign(worklog, worklogInput(ctx), { updated: ctx.store.now() });
  ctx.store.touch(issue);
  return ok(renderWorklog(ctx.origin, ctx.store.site, issue, worklog));
}

function deleteWorklog(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const worklog = findWorklog(ctx, issue);
  issue.worklogs = issue.worklogs.filter((w) => w !== worklog);
  ctx.store.touch(issue);
  return noContent();
}

const ISSUE = `${API}/issue/:issueIdOrKey`;

export const COMMENT_ROUTES: readonly RouteDef[] = [
  { method: "GET", pattern: `${ISSUE}/comment`, handler: listComments },
  { method: "POST", pattern: `${ISSUE}/comment`, handler: addComment },
  { method: "GET", pattern: `${ISSUE}/comment/:id`, handler: getComment },
  { method: "PUT", pattern: `${ISSUE}/comment/:id`, handler: editComment },
  { method: "DELETE", pattern: `${ISSUE}/comment/:id`, handler: deleteComment },
  { method: "GET", pattern: `${ISSUE}/worklog`, handler: listWorklogs },
  { method: "POST", pattern: `${ISSUE}/worklog`, handler: addWorklog },
  { method: "GET", pattern: `${ISSUE}/worklog/:id`, handler: getWorklog },
  { method: "PUT", pattern: `${ISSUE}/worklog/:id`, handler: editWorklog },
  { method: "DELETE", pattern: `${ISSUE}/worklog/:id`, handler: deleteWorklog },
];
