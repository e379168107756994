import type { Version3Models } from "jira.js";
import {
  ISSUE_NOT_FOUND,
  badRequest,
  intParam,
  notFound,
  ok,
  type RequestContext,
  type RouteDef,
} from "./context.js";
import { fieldList } from "./fields.js";
import {
  renderIssueType,
  renderPriority,
  renderProjectRef,
  renderResolution,
  renderStatus,
  renderUser,
} from "./render.js";
import { findAccount, type Account, type IssueTypeDef } from "./site.js";
import { isAssignable, visibleEmail } from "./users.js";

const API = "/rest/api/3";

export function project(ctx: RequestContext): Version3Models.Project {
  const { site } = ctx.store;
  const ref =
    ctx.params.projectIdOrKey ?? ctx.query.get("projectId") ?? ctx.query.get("project") ?? "";
  if (ref.toUpperCase() !== site.project.key && ref !== site.project.id) {
    throw notFound(`No project could be found with key '${ref}'.`);
  }
  return {
    ...renderProjectRef(ctx.origin, site),
    description: "",
    assigneeType: "UNASSIGNED",
    style: "classic",
    isPrivate: false,
    issueTypes: site.issueTypes.map((t) => renderIssueType(ctx.origin, t)),
    versions: [],
    components: [],
  };
}

/** User search: display-name word prefixes and visible email prefixes only (GDPR). */
function matchUsers(ctx: RequestContext, accounts: readonly Account[]): Version3Models.User[] {
  const accountId = ctx.query.get("accountId");
  const query = (ctx.query.get("query") ?? ctx.query.get("username") ?? "").toLowerCase();
  if (accountId === null && query === "" && ctx.query.get("project") === null) {
    throw badRequest("The query parameter 'query' or 'accountId' is required.");
  }
  const startAt = intParam(ctx, "startAt", 0, Number.MAX_SAFE_INTEGER);
  const maxResults = intParam(ctx, "maxResults", 50, 1000);
  return accounts
    .filter((a) => accountId === null || a.accountId === accountId)
    .filter(
      (a) =>
        query === "" ||
        a.displayName
          .toLowerCase()
          .split(" ")
          .some((w) => w.startsWith(query)) ||
        a.displayName.toLowerCase().startsWith(query) ||
        (visibleEmail(a)?.toLowerCase().startsWith(query) ?? false),
    )
    .slice(startAt, startAt + maxResults)
    .map((a) => renderUser(ctx.origin, a));
}

function allAccounts(ctx: RequestContext): Account[] {
  return [ctx.store.site.admin, ...ctx.store.site.users];
}

function getUser(ctx: RequestContext) {
  const id = ctx.query.get("accountId");
  if (id === null) throw badRequest("The query parameter 'accountId' is required.");
  const account = findAccount(ctx.store.site, id);
  if (account === undefined)
    throw notFound(`Specified user does not exist or you do not have required permissions`);
  return ok(renderUser(ctx.origin, account));
}

function listUsers(ctx: RequestContext) {
  const startAt = intParam(ctx, "startAt", 0, Number.MAX_SAFE_INTEGER);
  const maxResults = intParam(ctx, "maxResults", 50, 1000);
  return ok(
    allAccounts(ctx)
      .slice(startAt, startAt + maxResults)
      .map((a) => renderUser(ctx.origin, a)),
  );
}

function createMetaTypes(ctx: RequestContext) {
  project(ctx);
  const types = ctx.store.site.issueTypes.map((t) => renderIssueType(ctx.origin, t));
  return ok({ startAt: 0, maxResults: 50, total: types.length, issueTypes: types, values: types });
}

/** Field metadata of the create (or edit) screen for an issue type. */
export function screenFields(ctx: RequestContext, type: IssueTypeDef, mode: "create" | "edit") {
  const { site } = ctx.store;
  const defaultPriority = site.priorities.find((p) => p.id === site.defaultPriorityId);
  const settable = [
    "summary",
    ...(mode === "create" ? ["issuetype", "project"] : []),
    "description",
    "priority",
    "labels",
    "assignee",
    "reporter",
    "parent",
    "duedate",
    site.storyPointsFieldId,
    site.sprintFieldId,
  ];
  const required = new Set([
    "summary",
    ...(mode === "create" ? ["issuetype", "project"] : []),
    ...(type.subtask ? ["parent"] : []),
  ]);
  return fieldList(site)
    .filter((f) => settable.includes(f.id ?? ""))
    .map((f) => ({
      required: required.has(f.id ?? ""),
      schema: f.schema ?? { type: "issuelink", system: "parent" },
      name: f.name,
      key: f.key,
      fieldId: f.id,
      hasDefaultValue: f.id === "priority",
      operations: f.id === "labels" ? ["add", "set", "remove"] : ["set"],
      ...(f.id === "priority" && {
        allowedValues: site.priorities.map((p) => renderPriority(ctx.origin, p, site)),
        // What an issue created without a priority gets (the project's priority scheme).
        ...(mode === "create" &&
          defaultPriority !== undefined && {
            defaultValue: renderPriority(ctx.origin, defaultPriority, site),
          }),
      }),
    }));
}

function createMetaFields(ctx: RequestContext) {
  project(ctx);
  const type = ctx.store.site.issueTypes.find((t) => t.id === ctx.params.issueTypeId);
  if (type === undefined)
    throw notFound(`Issue type with id '${ctx.params.issueTypeId ?? ""}' does not exist.`);
  const all = screenFields(ctx, type, "create");
  const startAt = intParam(ctx, "startAt", 0, Number.MAX_SAFE_INTEGER);
  const maxResults = intParam(ctx, "maxResults", 50, 200);
  const fields = all.slice(startAt, startAt + maxResults);
  return ok({ startAt, maxResults, total: all.length, fields, results: fields });
}

/** `GET /issue/{key}/editmeta`: the fields an edit may set (status is never among them). */
function editMeta(ctx: RequestContext) {
  const issue = ctx.store.findIssue(ctx.params.issueIdOrKey ?? "");
  if (issue === undefined) throw notFound(ISSUE_NOT_FOUND);
  const type = ctx.store.site.issueTypes.find((t) => t.id === issue.issueTypeId);
  if (type === undefined) throw notFound(ISSUE_NOT_FOUND);
  const fields = screenFields(ctx, type, "edit").map((f): [string, unknown] => [
    f.fieldId ?? "",
    f,
  ]);
  return ok({ fields: Object.fromEntries(fields) });
}

export const META_ROUTES: readonly RouteDef[] = [
  {
    method: "GET",
    pattern: `${API}/myself`,
    handler: (ctx) => ok(renderUser(ctx.origin, ctx.user)),
  },
  {
    method: "GET",
    pattern: `${API}/project/search`,
    handler: (ctx) => {
      const p = project({ ...ctx, params: { projectIdOrKey: ctx.store.site.project.key } });
      return ok({ startAt: 0, maxResults: 50, total: 1, isLast: true, values: [p] });
    },
  },
  { method: "GET", pattern: `${API}/project/:projectIdOrKey`, handler: (ctx) => ok(project(ctx)) },
  {
    method: "GET",
    pattern: `${API}/issuetype`,
    handler: (ctx) => ok(ctx.store.site.issueTypes.map((t) => renderIssueType(ctx.origin, t))),
  },
  {
    method: "GET",
    pattern: `${API}/issuetype/project`,
    handler: (ctx) => ok(project(ctx).issueTypes),
  },
  {
    method: "GET",
    pattern: `${API}/issue/createmeta/:projectIdOrKey/issuetypes`,
    handler: createMetaTypes,
  },
  { method: "GET", pattern: `${API}/issue/:issueIdOrKey/editmeta`, handler: editMeta },
  {
    method: "GET",
    pattern: `${API}/issue/createmeta/:projectIdOrKey/issuetypes/:issueTypeId`,
    handler: createMetaFields,
  },
  {
    method: "GET",
    pattern: `${API}/priority`,
    handler: (ctx) =>
      ok(ctx.store.site.priorities.map((p) => renderPriority(ctx.origin, p, ctx.store.site))),
  },
  {
    method: "GET",
    pattern: `${API}/resolution`,
    handler: (ctx) => ok(ctx.store.site.resolutions.map((r) => renderResolution(ctx.origin, r))),
  },
  {
    method: "GET",
    pattern: `${API}/status`,
    handler: (ctx) => ok(ctx.store.site.workflow.statuses.map((s) => renderStatus(ctx.origin, s))),
  },
  { method: "GET", pattern: `${API}/field`, handler: (ctx) => ok(fieldList(ctx.store.site)) },
  { method: "GET", pattern: `${API}/user`, handler: getUser },
  { method: "GET", pattern: `${API}/users/search`, handler: listUsers },
  { method: "GET", pattern: `${API}/users`, handler: listUsers },
  {
    method: "GET",
    pattern: `${API}/user/search`,
    handler: (ctx) => ok(matchUsers(ctx, allAccounts(ctx))),
  },
  {
    method: "GET",
    pattern: `${API}/user/assignable/search`,
    handler: (ctx) => {
      const ref = ctx.query.get("project");
      if (ref !== null) project({ ...ctx, params: { projectIdOrKey: ref } });
      return ok(matchUsers(ctx, allAccounts(ctx).filter(isAssignable)));
    },
  },
];
