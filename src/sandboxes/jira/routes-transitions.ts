import type { Version3Models } from "jira.js";
import { adfProblem, type AdfDocument } from "./adf.js";
import {
  badRequest,
  bodyObject,
  fieldErrors,
  isRecord,
  noContent,
  ok,
  type RequestContext,
  type RouteDef,
  issueParam,
} from "./context.js";
import { renderResolution, renderStatus } from "./render.js";
import { findNamed } from "./site.js";
import { nextChangeId, type IssueRecord } from "./store.js";
import {
  availableTransitions,
  findTransition,
  statusById,
  type WorkflowTransition,
} from "./workflow.js";

const API = "/rest/api/3";

function renderTransition(
  ctx: RequestContext,
  t: WorkflowTransition,
  withFields: boolean,
): Version3Models.IssueTransition {
  const { site } = ctx.store;
  const to = statusById(site.workflow, t.to);
  const result: Version3Models.IssueTransition = {
    id: t.id,
    name: t.name,
    hasScreen: (t.requiredFields ?? []).length > 0,
    isGlobal: t.from === "any",
    isInitial: false,
    isAvailable: true,
    isConditional: false,
    looped: false,
  };
  if (to !== undefined) result.to = renderStatus(ctx.origin, to);
  if (withFields) {
    result.fields = Object.fromEntries(
      (t.requiredFields ?? []).map((name) => [
        name,
        {
          required: true,
          schema: { type: name, system: name },
          name: name.charAt(0).toUpperCase() + name.slice(1),
          key: name,
          hasDefaultValue: false,
          operations: ["set"],
          allowedValues: site.resolutions.map((r) => renderResolution(ctx.origin, r)),
        },
      ]),
    );
  }
  return result;
}

/** Lists only the transitions valid from the issue's current status. */
function getTransitions(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const withFields = (ctx.query.get("expand") ?? "").split(",").includes("transitions.fields");
  const only = ctx.query.get("transitionId");
  const transitions = availableTransitions(ctx.store.site.workflow, issue.statusId)
    .filter((t) => only === null || t.id === only)
    .map((t) => renderTransition(ctx, t, withFields));
  const body: Version3Models.Transitions = { expand: "transitions", transitions };
  return ok(body);
}

/**
 * Performs a transition from the current status: an unknown id or one not valid from here → 400;
 * required screen fields (resolution) must be given; fields not on the screen → 400.
 */
export function applyTransition(
  ctx: RequestContext,
  issue: IssueRecord,
  body: { transition: unknown; fields?: Record<string, unknown>; update?: unknown },
): void {
  const { site } = ctx.store;
  const id = isRecord(body.transition) ? body.transition.id : undefined;
  if (typeof id !== "string" && typeof id !== "number") {
    throw badRequest("Missing 'transition' identifier");
  }
  const lookup = findTransition(site.workflow, issue.statusId, String(id));
  if (lookup.kind !== "ok") {
    throw badRequest(`Transition id '${String(id)}' is not valid for this issue.`);
  }
  const t = lookup.transition;
  const { resolutionId, errors } = screenFields(ctx, t, body.fields ?? {});
  const comment = transitionComment(body.update);
  if (comment === "invalid") errors.comment = "Comment body is not valid!";
  if (Object.keys(errors).length > 0) throw fieldErrors(errors);
  const now = ctx.store.now();
  if (issue.statusId !== t.to) {
    issue.statusChangedAt = now;
    const id = nextChangeId(issue);
    issue.statusChanges.push({
      id,
      at: now,
      authorId: ctx.user.accountId,
      from: issue.statusId,
      to: t.to,
    });
  }
  issue.statusId = t.to;
  if (resolutionId !== undefined) {
    issue.resolutionId = resolutionId;
    issue.resolutionDate = now;
  } else if (t.clearsResolution === true) {
    issue.resolutionId = null;
    issue.resolutionDate = null;
  }
  if (comment !== undefined && comment !== "invalid") {
    const commentId = ctx.store.nextCommentId();
    const authorId = ctx.user.accountId;
    issue.comments.push({ id: commentId, authorId, body: comment, created: now, updated: now });
  }
  ctx.store.touch(issue);
}

/** Checks the transition screen: required fields present, nothing that is not on the screen. */
function screenFields(
  ctx: RequestContext,
  t: WorkflowTransition,
  fields: Record<string, unknown>,
): { resolutionId: string | undefined; errors: Record<string, string> } {
  const required = t.requiredFields ?? [];
  const errors: Record<string, string> = {};
  let resolutionId: string | undefined;
  if (required.includes("resolution")) {
    const ref = fields.resolution;
    const r = isRecord(ref) ? findNamed(ctx.store.site.resolutions, ref) : undefined;
    if (r === undefined) errors.resolution = "Resolution is required.";
    else resolutionId = r.id;
  }
  for (const name of Object.keys(fields)) {
    if (!required.includes(name)) {
      errors[name] =
        `Field '${name}' cannot be set. It is not on the appropriate screen, or unknown.`;
    }
  }
  return { resolutionId, errors };
}

/** `update.comment: [{add: {body: ADF}}]` on a transition or an edit. */
export function transitionComment(update: unknown): AdfDocument | "invalid" | undefined {
  if (!isRecord(update) || !Array.isArray(update.comment)) return undefined;
  const op: unknown = update.comment[0];
  const body = isRecord(op) && isRecord(op.add) ? op.add.body : undefined;
  return adfProblem(body) === undefined ? (body as AdfDocument) : "invalid";
}

function postTransition(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const body = bodyObject(ctx);
  const fields = isRecord(body.fields) ? body.fields : {};
  applyTransition(ctx, issue, { transition: body.transition, fields, update: body.update });
  return noContent();
}

export const TRANSITION_ROUTES: readonly RouteDef[] = [
  { method: "GET", pattern: `${API}/issue/:issueIdOrKey/transitions`, handler: getTransitions },
  { method: "POST", pattern: `${API}/issue/:issueIdOrKey/transitions`, handler: postTransition },
];
