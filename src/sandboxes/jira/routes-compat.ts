import {
  ISSUE_NOT_FOUND,
  bodyObject,
  fieldErrors,
  noContent,
  notFound,
  ok,
  type RequestContext,
  type RouteDef,
} from "./context.js";
import { applyFields, type IssueDraft } from "./issue-fields.js";
import { formatTime, renderIssueType, renderProjectRef } from "./render.js";
import { project, screenFields } from "./routes-meta.js";
import { recordEdit } from "./routes-changelog.js";

const API = "/rest/api/3";

/**
 * Endpoints that widely used clients call before anything else, or instead of the newer ones:
 * the full `serverInfo` (python-jira reads `versionNumbers` in its constructor), the project
 * list (deprecated, still served by Cloud), the legacy `issue/createmeta`, and
 * `PUT issue/{key}/assignee`.
 */
export const COMPAT_ROUTES: readonly RouteDef[] = [
  { method: "GET", pattern: `${API}/serverInfo`, handler: serverInfo },
  { method: "GET", pattern: `${API}/project`, handler: (ctx) => ok([projectOf(ctx)]) },
  { method: "GET", pattern: `${API}/issue/createmeta`, handler: createMeta },
  { method: "PUT", pattern: `${API}/issue/:issueIdOrKey/assignee`, handler: assign },
];

function serverInfo(ctx: RequestContext) {
  return ok({
    baseUrl: ctx.origin,
    displayUrl: ctx.origin,
    version: "1001.0.0-SNAPSHOT",
    versionNumbers: [1001, 0, 0],
    deploymentType: "Cloud",
    buildNumber: 100_283,
    buildDate: "2026-11-01T00:00:00.000+0000",
    serverTime: formatTime(ctx.store.now()),
    scmInfo: "5f3d2c1b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c",
    serverTitle: "Jira sandbox",
    defaultLocale: { locale: "en_US" },
    serverTimeZone: "Etc/UTC",
  });
}

function projectOf(ctx: RequestContext) {
  return project({ ...ctx, params: { projectIdOrKey: ctx.store.site.project.key } });
}

/** A comma list query parameter (`projectKeys=WID,ABC`), or undefined when absent. */
function list(query: URLSearchParams, name: string): string[] | undefined {
  const raw = query.get(name);
  return raw === null || raw === "" ? undefined : raw.split(",").map((v) => v.trim());
}

/**
 * The legacy `GET /issue/createmeta`: projects (filtered by `projectKeys`/`projectIds`) with
 * their issue types (`issuetypeIds`/`issuetypeNames`), and each type's create-screen fields
 * with `expand=projects.issuetypes.fields`.
 */
function createMeta(ctx: RequestContext) {
  const { site } = ctx.store;
  const keys = list(ctx.query, "projectKeys")?.map((k) => k.toUpperCase());
  const ids = list(ctx.query, "projectIds");
  const wanted =
    (keys === undefined && ids === undefined) ||
    keys?.includes(site.project.key) === true ||
    ids?.includes(site.project.id) === true;
  const typeIds = list(ctx.query, "issuetypeIds");
  const typeNames = list(ctx.query, "issuetypeNames")?.map((n) => n.toLowerCase());
  const withFields = (ctx.query.get("expand") ?? "")
    .split(",")
    .includes("projects.issuetypes.fields");
  const types = site.issueTypes.filter(
    (t) =>
      (typeIds === undefined || typeIds.includes(t.id)) &&
      (typeNames === undefined || typeNames.includes(t.name.toLowerCase())),
  );
  const projects = wanted
    ? [
        {
          ...renderProjectRef(ctx.origin, site),
          issuetypes: types.map((t) => ({
            ...renderIssueType(ctx.origin, t),
            ...(withFields
              ? {
                  fields: Object.fromEntries(
                    screenFields(ctx, t, "create").map((f) => [f.fieldId ?? "", f]),
                  ),
                }
              : {}),
          })),
        },
      ]
    : [];
  return ok({ expand: "projects", projects });
}

/**
 * `PUT /issue/{key}/assignee` `{accountId}` → 204. `null` unassigns, `"-1"` picks the project's
 * default assignee (unassigned here). The account goes through the same assignee field rule as
 * an edit (issue-fields.ts `setAssignee`), which is where assignability is checked.
 */
function assign(ctx: RequestContext) {
  const issue = ctx.store.findIssue(ctx.params.issueIdOrKey ?? "");
  if (issue === undefined) throw notFound(ISSUE_NOT_FOUND);
  const body = bodyObject(ctx);
  if (!("accountId" in body)) {
    throw fieldErrors({ accountId: "Specify an accountId, or null to unassign." });
  }
  const id = body.accountId;
  const value = id === null || id === "-1" ? null : { accountId: id };
  const draft: IssueDraft = {
    ...issue,
    labels: [...issue.labels],
    sprintIds: [...issue.sprintIds],
  };
  const errors = applyFields({
    store: ctx.store,
    draft,
    fields: { assignee: value },
    update: {},
    mode: "edit",
  });
  if (Object.keys(errors).length > 0) throw fieldErrors(errors);
  if (draft.assigneeId !== issue.assigneeId) {
    const before = { ...issue };
    issue.assigneeId = draft.assigneeId;
    ctx.store.touch(issue);
    recordEdit(ctx, before, issue);
  }
  return noContent();
}
