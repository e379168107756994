import type { AgileModels } from "jira.js";
import {
  badRequest,
  bodyObject,
  created,
  fieldErrors,
  intParam,
  noContent,
  notFound,
  ok,
  type RequestContext,
  type RouteDef,
} from "./context.js";
import { parseFieldSelection, renderIssue } from "./render-issue.js";
import { renderSprint, renderUser } from "./render.js";
import { recordEdit } from "./routes-changelog.js";
import type { IssueRecord, SprintRecord } from "./store.js";
import { sprintUpdate } from "./sprint-rules.js";

const AGILE = "/rest/agile/1.0";

function board(ctx: RequestContext): AgileModels.Board {
  const { site } = ctx.store;
  if (ctx.params.boardId !== undefined && ctx.params.boardId !== String(site.board.id)) {
    throw notFound(`Board does not exist or you do not have permission to see it.`);
  }
  return {
    id: site.board.id,
    self: `${ctx.origin}${AGILE}/board/${site.board.id}`,
    name: site.board.name,
    type: "scrum",
    location: {
      projectId: Number(site.project.id),
      displayName: `${site.project.name} (${site.project.key})`,
      projectName: site.project.name,
      projectKey: site.project.key,
      projectTypeKey: "software",
      name: `${site.project.name} (${site.project.key})`,
    },
  };
}

/** The Agile paging envelope `{maxResults, startAt, total, isLast, values}`. */
function page<T>(ctx: RequestContext, items: readonly T[], fallback = 50) {
  const startAt = intParam(ctx, "startAt", 0, Number.MAX_SAFE_INTEGER);
  const maxResults = intParam(ctx, "maxResults", fallback, fallback);
  const values = items.slice(startAt, startAt + maxResults);
  return {
    maxResults,
    startAt,
    total: items.length,
    isLast: startAt + values.length >= items.length,
    values,
  };
}

function listBoards(ctx: RequestContext) {
  const b = board(ctx);
  const { site } = ctx.store;
  const type = ctx.query.get("type");
  const project = ctx.query.get("projectKeyOrId");
  const name = ctx.query.get("name");
  const keep =
    (type === null || type.split(",").includes("scrum")) &&
    (project === null ||
      project.toUpperCase() === site.project.key ||
      project === site.project.id) &&
    (name === null || (b.name ?? "").toLowerCase().includes(name.toLowerCase()));
  const boards: AgileModels.GetAllBoards = page(ctx, keep ? [b] : []);
  return ok(boards);
}

function configuration(ctx: RequestContext) {
  const b = board(ctx);
  const { site } = ctx.store;
  const body: AgileModels.GetConfiguration = {
    id: b.id ?? 0,
    name: b.name ?? "",
    type: "scrum",
    self: `${ctx.origin}${AGILE}/board/${b.id ?? 0}/configuration`,
    location: { type: "project", projectKeyOrId: site.project.id },
    filter: { id: "10000", self: `${ctx.origin}/rest/api/3/filter/10000` },
    columnConfig: {
      columns: site.workflow.statuses.map((s) => ({
        name: s.name,
        statuses: [{ id: s.id, self: `${ctx.origin}/rest/api/3/status/${s.id}` }],
      })),
      constraintType: "none",
    },
    estimation: {
      type: "field",
      field: { fieldId: site.storyPointsFieldId, displayName: "Story Points" },
    },
    ranking: { rankCustomFieldId: 10019 },
  };
  return ok(body);
}

const STATE_ORDER = { closed: 0, active: 1, future: 2 };

function boardSprints(ctx: RequestContext) {
  board(ctx);
  const states = (ctx.query.get("state") ?? "future,active,closed").split(",");
  const sprints = ctx.store
    .sprints()
    .filter((s) => states.includes(s.state))
    .sort((a, b) => STATE_ORDER[a.state] - STATE_ORDER[b.state] || a.id - b.id)
    .map((s) => renderSprint(ctx.origin, s));
  return ok(page(ctx, sprints));
}

function sprintParam(ctx: RequestContext): SprintRecord {
  const sprint = ctx.store.findSprint(Number(ctx.params.sprintId));
  if (sprint === undefined)
    throw notFound(`Sprint with id ${ctx.params.sprintId ?? ""} does not exist.`);
  return sprint;
}

function createSprint(ctx: RequestContext) {
  const body = bodyObject(ctx);
  const { site } = ctx.store;
  if (body.originBoardId !== site.board.id)
    throw fieldErrors({
      originBoardId: "The board id is required and must name an existing board.",
    });
  const fields = sprintUpdate({ current: undefined, body, otherActive: false });
  return created(
    renderSprint(
      ctx.origin,
      ctx.store.addSprint({ ...fields, boardId: site.board.id, state: "future" }),
    ),
  );
}

function updateSprint(ctx: RequestContext, full: boolean) {
  const sprint = sprintParam(ctx);
  const body = bodyObject(ctx);
  const otherActive = ctx.store
    .sprints()
    .some((s) => s.state === "active" && s.id !== sprint.id && s.boardId === sprint.boardId);
  const next = sprintUpdate({
    current: sprint,
    body: full ? { name: sprint.name, ...body } : body,
    otherActive,
    now: ctx.store.now(),
  });
  Object.assign(sprint, next);
  return ok(renderSprint(ctx.origin, sprint));
}

function deleteSprint(ctx: RequestContext) {
  const sprint = sprintParam(ctx);
  if (sprint.state === "closed") throw badRequest("A closed sprint cannot be deleted.");
  for (const issue of ctx.store.issues()) {
    if (issue.sprintIds.includes(sprint.id)) {
      issue.sprintIds = issue.sprintIds.filter((id) => id !== sprint.id);
      ctx.store.touch(issue);
    }
  }
  ctx.store.removeSprint(sprint.id);
  return noContent();
}

function issuesOf(ctx: RequestContext, refs: unknown): IssueRecord[] {
  if (!Array.isArray(refs) || refs.length === 0)
    throw badRequest("'issues' must be a non-empty array of issue keys or ids.");
  if (refs.length > 50)
    throw badRequest(
      `Too many issues: ${refs.length}. At most 50 issues can be moved in one request.`,
    );
  return refs.map((ref) => {
    const issue =
      typeof ref === "string" || typeof ref === "number"
        ? ctx.store.findIssue(String(ref))
        : undefined;
    if (issue === undefined)
      throw badRequest(
        `Issue '${String(ref)}' does not exist or you do not have permission to see it.`,
      );
    if (ctx.store.site.issueTypes.find((t) => t.id === issue.issueTypeId)?.subtask === true) {
      throw badRequest(`Issue '${issue.key}' is a sub-task: sub-tasks move with their parent.`);
    }
    return issue;
  });
}

/** Moves issues (and their sub-tasks) into a sprint, or to the backlog when `sprint` is null. */
function moveIssues(
  ctx: RequestContext,
  issues: readonly IssueRecord[],
  sprint: SprintRecord | null,
): void {
  const moving = issues.flatMap((i) => [
    i,
    ...ctx.store
      .children(i.id)
      .filter(
        (c) => ctx.store.site.issueTypes.find((t) => t.id === c.issueTypeId)?.subtask === true,
      ),
  ]);
  for (const issue of moving) {
    const before = { ...issue };
    const history = issue.sprintIds.filter((id) => ctx.store.findSprint(id)?.state === "closed");
    issue.sprintIds =
      sprint === null ? history : [...history.filter((id) => id !== sprint.id), sprint.id];
    ctx.store.touch(issue);
    recordEdit(ctx, before, issue);
  }
}

function moveToSprint(ctx: RequestContext) {
  const sprint = sprintParam(ctx);
  if (sprint.state === "closed")
    throw badRequest(
      `Sprint ${sprint.id} is closed: issues can be moved only into future or active sprints.`,
    );
  moveIssues(ctx, issuesOf(ctx, bodyObject(ctx).issues), sprint);
  return noContent();
}

function sprintIssues(ctx: RequestContext) {
  const sprint = sprintParam(ctx);
  const all = ctx.store.issues().filter((i) => i.sprintIds.includes(sprint.id));
  const startAt = intParam(ctx, "startAt", 0, Number.MAX_SAFE_INTEGER);
  const maxResults = intParam(ctx, "maxResults", 50, 100);
  const fields = parseFieldSelection(ctx.query.get("fields"), "*navigable");
  const issues = all
    .slice(startAt, startAt + maxResults)
    .map((i) => renderIssue(ctx.origin, ctx.store, i, { fields }));
  return ok({ expand: "schema,names", startAt, maxResults, total: all.length, issues });
}

export const AGILE_ROUTES: readonly RouteDef[] = [
  { method: "GET", pattern: `${AGILE}/board`, handler: listBoards },
  { method: "GET", pattern: `${AGILE}/board/:boardId`, handler: (ctx) => ok(board(ctx)) },
  { method: "GET", pattern: `${AGILE}/board/:boardId/configuration`, handler: configuration },
  { method: "GET", pattern: `${AGILE}/board/:boardId/sprint`, handler: boardSprints },
  { method: "POST", pattern: `${AGILE}/sprint`, handler: createSprint },
  {
    method: "GET",
    pattern: `${AGILE}/sprint/:sprintId`,
    handler: (ctx) => ok(renderSprint(ctx.origin, sprintParam(ctx))),
  },
  {
    method: "POST",
    pattern: `${AGILE}/sprint/:sprintId`,
    handler: (ctx) => updateSprint(ctx, false),
  },
  {
    method: "PUT",
    pattern: `${AGILE}/sprint/:sprintId`,
    handler: (ctx) => updateSprint(ctx, true),
  },
  { method: "DELETE", pattern: `${AGILE}/sprint/:sprintId`, handler: deleteSprint },
  { method: "GET", pattern: `${AGILE}/sprint/:sprintId/issue`, handler: sprintIssues },
  { method: "POST", pattern: `${AGILE}/sprint/:sprintId/issue`, handler: moveToSprint },
  {
    method: "POST",
    pattern: `${AGILE}/backlog/issue`,
    handler: (ctx) => {
      moveIssues(ctx, issuesOf(ctx, bodyObject(ctx).issues), null);
      return noContent();
    },
  },
  {
    method: "GET",
    pattern: `${AGILE}/board/:boardId/admins`,
    handler: (ctx) => ok({ users: [renderUser(ctx.origin, ctx.store.site.admin)], groups: [] }),
  },
];
