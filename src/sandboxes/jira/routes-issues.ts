import type { Version3Models } from "jira.js";
import {
  JiraHttpError,
  badRequest,
  bodyObject,
  created,
  fieldErrors,
  isRecord,
  issueParam,
  noContent,
  ok,
  queryFlag,
  type RequestContext,
  type RouteDef,
} from "./context.js";
import { applyFields, hierarchyProblem, type IssueDraft } from "./issue-fields.js";
import { fieldNames, parseFieldSelection, renderIssue } from "./render-issue.js";
import { expandedChangelog, recordEdit } from "./routes-changelog.js";
import type { IssueRecord } from "./store.js";
import { applyTransition, transitionComment } from "./routes-transitions.js";

const API = "/rest/api/3";

function objectOrEmpty(value: unknown, name: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw badRequest(`'${name}' must be a JSON object.`);
  return value;
}

function emptyDraft(priorityId: string, reporterId: string): IssueDraft {
  return {
    issueTypeId: "",
    summary: "",
    description: null,
    labels: [],
    priorityId,
    assigneeId: null,
    reporterId,
    parentId: null,
    duedate: null,
    storyPoints: null,
    sprintIds: [],
  };
}

/** Validates and creates one issue from an `IssueUpdateDetails` payload; throws JiraHttpError. */
export function createOne(ctx: RequestContext, payload: unknown): Version3Models.CreatedIssue {
  if (!isRecord(payload)) throw badRequest("The issue to create must be a JSON object.");
  const fields = objectOrEmpty(payload.fields, "fields");
  const update = objectOrEmpty(payload.update, "update");
  const { site } = ctx.store;
  const draft = emptyDraft(site.defaultPriorityId, ctx.user.accountId);
  const { resolution: _resolution, ...settable } = fields;
  const errors = applyFields({ store: ctx.store, draft, fields: settable, update, mode: "create" });
  if (!("project" in fields)) errors.project = "Specify a valid project ID or key";
  if (!("issuetype" in fields)) errors.issuetype = "Specify an issue type";
  if (!("summary" in fields) && !("summary" in update))
    errors.summary = "You must specify a summary of the issue.";
  const hierarchy =
    Object.keys(errors).length === 0 ? hierarchyProblem(site, ctx.store, draft) : undefined;
  if (hierarchy !== undefined) errors.parent = hierarchy;
  if (Object.keys(errors).length > 0) throw fieldErrors(errors);
  const issue = ctx.store.addIssue({
    ...draft,
    creatorId: ctx.user.accountId,
    statusId: site.workflow.initialStatusId,
    resolutionId: null,
    resolutionDate: null,
    comments: [],
    worklogs: [],
    properties: new Map(readProperties(payload.properties)),
  });
  const result: Version3Models.CreatedIssue = {
    id: String(issue.id),
    key: issue.key,
    self: `${ctx.origin}${API}/issue/${issue.id}`,
  };
  const transition = isRecord(payload.transition) ? payload.transition : undefined;
  if (transition !== undefined)
    result.transition = transitionOnCreate(ctx, issue, transition, fields.resolution);
  return result;
}

/** A create may land in a later step; a failed transition is reported, the issue stays created. */
function transitionOnCreate(
  ctx: RequestContext,
  issue: IssueRecord,
  transition: Record<string, unknown>,
  resolution: unknown,
): Version3Models.NestedResponse {
  try {
    applyTransition(ctx, issue, {
      transition,
      fields: resolution === undefined ? {} : { resolution },
    });
    return { status: 204, errorCollection: { errorMessages: [], errors: {} } };
  } catch (error) {
    if (!(error instanceof JiraHttpError)) throw error;
    return {
      status: error.status,
      errorCollection: { errorMessages: [...error.errorMessages], errors: { ...error.errors } },
    };
  }
}

function readProperties(value: unknown): [string, unknown][] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(isRecord)
    .flatMap((p) => (typeof p.key === "string" ? [[p.key, p.value] as [string, unknown]] : []));
}

function createIssue(ctx: RequestContext) {
  return created(createOne(ctx, bodyObject(ctx)));
}

/** Bulk create: ≤ 50 issues; 201 when any succeeded, 400 when all failed (same body shape). */
function bulkCreate(ctx: RequestContext) {
  const updates = bodyObject(ctx).issueUpdates;
  if (!Array.isArray(updates))
    throw badRequest("The request must contain 'issueUpdates', an array of issues to create.");
  if (updates.length > 50) {
    throw badRequest(
      `Too many issues to create: ${updates.length}. The maximum is 50 per request.`,
    );
  }
  const result: Required<Version3Models.CreatedIssues> = { issues: [], errors: [] };
  updates.forEach((payload, index) => {
    try {
      result.issues.push(createOne(ctx, payload));
    } catch (error) {
      if (!(error instanceof JiraHttpError)) throw error;
      result.errors.push({
        status: error.status,
        elementErrors: { errorMessages: [...error.errorMessages], errors: { ...error.errors } },
        failedElementNumber: index,
      });
    }
  });
  return { status: result.issues.length > 0 || updates.length === 0 ? 201 : 400, body: result };
}

function getIssue(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const fields = parseFieldSelection(ctx.query.get("fields"), "*all");
  const properties = (ctx.query.get("properties") ?? "").split(",").filter((s) => s !== "");
  const result = renderIssue(ctx.origin, ctx.store, issue, { fields, properties });
  const expand = (ctx.query.get("expand") ?? "").split(",");
  if (expand.includes("names")) result.names = fieldNames(ctx.store.site, fields);
  if (expand.includes("changelog"))
    return ok({ ...result, changelog: expandedChangelog(ctx, issue) });
  return ok(result);
}

/** Edit: 204; `status` and `resolution` are not editable; a `transition` in the body is ignored. */
function editIssue(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const body = bodyObject(ctx);
  const draft: IssueDraft = {
    ...issue,
    labels: [...issue.labels],
    sprintIds: [...issue.sprintIds],
  };
  const fields = objectOrEmpty(body.fields, "fields");
  const { comment: _comment, ...update } = objectOrEmpty(body.update, "update");
  const comment = transitionComment(body.update);
  const errors = applyFields({ store: ctx.store, draft, fields, update, mode: "edit" });
  if (comment === "invalid") errors.comment = "Comment body is not valid!";
  const hierarchy =
    "parent" in fields && Object.keys(errors).length === 0
      ? hierarchyProblem(ctx.store.site, ctx.store, draft)
      : undefined;
  if (hierarchy !== undefined) errors.parent = hierarchy;
  if (Object.keys(errors).length > 0) throw fieldErrors(errors);
  const before = { ...issue };
  Object.assign(issue, draft);
  for (const [key, value] of readProperties(body.properties)) issue.properties.set(key, value);
  ctx.store.touch(issue);
  recordEdit(ctx, before, issue);
  if (comment !== undefined && comment !== "invalid") {
    const at = ctx.store.now();
    const id = ctx.store.nextCommentId();
    issue.comments.push({
      id,
      authorId: ctx.user.accountId,
      body: comment,
      created: at,
      updated: at,
    });
  }
  if (queryFlag(ctx.query, "returnIssue")) {
    return ok(
      renderIssue(ctx.origin, ctx.store, issue, { fields: parseFieldSelection(undefined, "*all") }),
    );
  }
  return noContent();
}

function deleteIssue(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const withSubtasks = queryFlag(ctx.query, "deleteSubtasks");
  const children = ctx.store.children(issue.id);
  const subtasks = children.filter(
    (c) => ctx.store.site.issueTypes.find((t) => t.id === c.issueTypeId)?.subtask,
  );
  if (subtasks.length > 0 && !withSubtasks) {
    throw badRequest("The issue has subtasks: delete them first, or set deleteSubtasks=true.");
  }
  for (const child of subtasks) ctx.store.deleteIssue(child.id);
  for (const child of children)
    child.parentId = child.parentId === issue.id ? null : child.parentId;
  ctx.store.deleteIssue(issue.id);
  return noContent();
}

export const ISSUE_ROUTES: readonly RouteDef[] = [
  { method: "POST", pattern: `${API}/issue`, handler: createIssue },
  { method: "POST", pattern: `${API}/issue/bulk`, handler: bulkCreate },
  { method: "GET", pattern: `${API}/issue/:issueIdOrKey`, handler: getIssue },
  { method: "PUT", pattern: `${API}/issue/:issueIdOrKey`, handler: editIssue },
  { method: "DELETE", pattern: `${API}/issue/:issueIdOrKey`, handler: deleteIssue },
];
