import { createHash } from "node:crypto";
import type { Version3Models } from "jira.js";
import {
  JiraHttpError,
  badRequest,
  isRecord,
  ok,
  type RequestContext,
  type RouteDef,
} from "./context.js";
import { adfText } from "./adf.js";
import { JqlError, parseJql } from "./jql.js";
import { compileJql, type JqlIssue } from "./jql-eval.js";
import { fieldNames, onlyIdOrKey, parseFieldSelection, renderIssue } from "./render-issue.js";
import { statusOf } from "./render.js";
import type { IssueRecord, JiraStore } from "./store.js";

const REMOVED =
  "The requested API has been removed. Please migrate to the /rest/api/3/search/jql API. A full migration guideline is available at https://developer.atlassian.com/changelog/#CHANGE-2046";
const UNBOUNDED =
  "Unbounded JQL queries are not allowed here. Please add a search restriction to your query.";
const BAD_TOKEN = "The provided next page token is invalid or expired.";

/** The view of an issue that JQL evaluates. */
function toJqlIssue(store: JiraStore, issue: IssueRecord): JqlIssue {
  const { site } = store;
  const parent = issue.parentId === null ? undefined : store.findIssue(String(issue.parentId));
  const type = site.issueTypes.find((t) => t.id === issue.issueTypeId);
  const priority = site.priorities.find((p) => p.id === issue.priorityId);
  const resolution = site.resolutions.find((r) => r.id === issue.resolutionId);
  const status = statusOf(site, issue);
  return {
    id: issue.id,
    key: issue.key,
    projectId: site.project.id,
    projectKey: site.project.key,
    projectName: site.project.name,
    parent: parent === undefined ? undefined : { id: parent.id, key: parent.key },
    created: issue.created,
    updated: issue.updated,
    status: { id: status.id, name: status.name },
    issueType: { id: issue.issueTypeId, name: type?.name ?? "" },
    priority: { id: issue.priorityId, name: priority?.name ?? "" },
    resolution: resolution === undefined ? undefined : { id: resolution.id, name: resolution.name },
    labels: issue.labels,
    assigneeId: issue.assigneeId ?? undefined,
    reporterId: issue.reporterId ?? undefined,
    sprints: issue.sprintIds.flatMap((id) => {
      const s = store.findSprint(id);
      return s === undefined ? [] : [{ id: s.id, name: s.name }];
    }),
    summary: issue.summary,
    text: `${issue.summary}\n${adfText(issue.description)}`,
    property: (key) => issue.properties.get(key),
  };
}

interface SearchInput {
  readonly jql: string;
  readonly nextPageToken: string | undefined;
  readonly maxResults: number | undefined;
  readonly fields: unknown;
  readonly properties: readonly string[];
  readonly reconcileIssues: readonly number[];
  readonly expand: string;
}

export function listOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return typeof value === "string" ? value.split(",").filter((s) => s !== "") : [];
}

function fromQuery(q: URLSearchParams): SearchInput {
  const max = q.get("maxResults");
  return {
    jql: q.get("jql") ?? "",
    nextPageToken: q.get("nextPageToken") ?? undefined,
    maxResults: max === null ? undefined : Number(max),
    fields: q.getAll("fields").join(","),
    properties: listOf(q.getAll("properties").join(",")),
    reconcileIssues: listOf(q.getAll("reconcileIssues").join(",")).map(Number),
    expand: q.get("expand") ?? "",
  };
}

function fromBody(body: unknown): SearchInput {
  const b = isRecord(body) ? body : {};
  return {
    jql: typeof b.jql === "string" ? b.jql : "",
    nextPageToken: typeof b.nextPageToken === "string" ? b.nextPageToken : undefined,
    maxResults: typeof b.maxResults === "number" ? b.maxResults : undefined,
    fields: b.fields,
    properties: listOf(b.properties),
    reconcileIssues: listOf(b.reconcileIssues).map(Number),
    expand: Array.isArray(b.expand)
      ? b.expand.join(",")
      : typeof b.expand === "string"
        ? b.expand
        : "",
  };
}

function digest(jql: string): string {
  return createHash("sha256").update(jql).digest("base64url").slice(0, 12);
}

function readToken(token: string | undefined, jql: string): number {
  if (token === undefined || token === "") return 0;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    if (isRecord(parsed) && parsed.q === digest(jql) && typeof parsed.o === "number")
      return parsed.o;
  } catch {
    // fall through: an unreadable token is answered like an expired one
  }
  throw badRequest(BAD_TOKEN);
}

/** Issues the search index can see: recent writes stay invisible for `indexingLagMs`. */
function visibleIssues(ctx: RequestContext, reconcile: readonly number[]): IssueRecord[] {
  const now = ctx.clock();
  return ctx.store
    .issues()
    .filter(
      (i) =>
        ctx.indexingLagMs <= 0 || now - i.updated >= ctx.indexingLagMs || reconcile.includes(i.id),
    );
}

/**
 * Runs the JQL over the visible issues, in the query's order; JQL problems answer 400. Cloud
 * refuses unbounded queries; Data Center runs them (`requireBounded` false).
 */
export function matchIssues(
  ctx: RequestContext,
  input: Pick<SearchInput, "jql" | "reconcileIssues">,
  requireBounded = true,
): IssueRecord[] {
  try {
    const compiled = compileJql(parseJql(input.jql), {
      now: ctx.clock(),
      projects: [ctx.store.site.project],
      issueExists: (ref) => ctx.store.findIssue(ref) !== undefined,
    });
    if (requireBounded && !compiled.bounded) throw badRequest(UNBOUNDED);
    return visibleIssues(ctx, input.reconcileIssues)
      .map((record) => ({ record, view: toJqlIssue(ctx.store, record) }))
      .filter((v) => compiled.matches(v.view))
      .sort((a, b) => compiled.compare(a.view, b.view))
      .map((v) => v.record);
  } catch (error) {
    if (error instanceof JqlError) throw new JiraHttpError(400, [error.message]);
    throw error;
  }
}

/** One page: `{issues, nextPageToken?, isLast}` (no `total`); only ids unless fields are asked. */
function search(ctx: RequestContext, input: SearchInput) {
  const matched = matchIssues(ctx, input);
  const selection = parseFieldSelection(input.fields, "id");
  const size = Math.max(1, Math.min(input.maxResults ?? 50, onlyIdOrKey(selection) ? 5000 : 100));
  const offset = readToken(input.nextPageToken, input.jql);
  const idOnly =
    !selection.all &&
    [...selection.include].every((f) => f === "id") &&
    input.properties.length === 0;
  const issues = matched.slice(offset, offset + size).map((issue) =>
    idOnly
      ? ({ id: String(issue.id) } as Version3Models.Issue)
      : renderIssue(ctx.origin, ctx.store, issue, {
          fields: selection,
          properties: input.properties,
        }),
  );
  const body: Version3Models.SearchAndReconcileResults & { isLast: boolean } = {
    issues,
    isLast: offset + size >= matched.length,
  };
  if (input.expand.split(",").includes("names")) body.names = fieldNames(ctx.store.site, selection);
  if (!body.isLast) {
    const token = JSON.stringify({ q: digest(input.jql), o: offset + size });
    body.nextPageToken = Buffer.from(token).toString("base64url");
  }
  return ok(body);
}

function approximateCount(ctx: RequestContext) {
  const result = search(ctx, { ...fromBody(ctx.body), maxResults: 5000, fields: "id" });
  const body = result.body as { issues: unknown[] };
  return ok({ count: body.issues.length });
}

/** `POST /issue/bulkfetch`: up to 100 ids/keys, ascending id order, unknown ones reported. */
function bulkFetch(ctx: RequestContext) {
  const b = isRecord(ctx.body) ? ctx.body : {};
  const refs = listOf(b.issueIdsOrKeys);
  if (refs.length === 0 || refs.length > 100)
    throw badRequest("issueIdsOrKeys must contain between 1 and 100 issue ids or keys.");
  const found = refs
    .map((r) => ctx.store.findIssue(r))
    .filter((i): i is IssueRecord => i !== undefined);
  const unique = [...new Set(found)].sort((a, c) => a.id - c.id);
  const selection = parseFieldSelection(b.fields, "*navigable");
  return ok({
    expand: "",
    issues: unique.map((i) =>
      renderIssue(ctx.origin, ctx.store, i, {
        fields: selection,
        properties: listOf(b.properties),
      }),
    ),
    issueErrors: refs.filter((r) => ctx.store.findIssue(r) === undefined),
  });
}

function removed(): never {
  throw new JiraHttpError(410, [REMOVED]);
}

export const SEARCH_ROUTES: readonly RouteDef[] = [
  {
    method: "GET",
    pattern: "/rest/api/3/search/jql",
    handler: (ctx) => search(ctx, fromQuery(ctx.query)),
  },
  {
    method: "POST",
    pattern: "/rest/api/3/search/jql",
    handler: (ctx) => search(ctx, fromBody(ctx.body)),
    write: false,
  },
  {
    method: "POST",
    pattern: "/rest/api/3/search/approximate-count",
    handler: approximateCount,
    write: false,
  },
  { method: "POST", pattern: "/rest/api/3/issue/bulkfetch", handler: bulkFetch, write: false },
  ...[
    "/rest/api/3/search",
    "/rest/api/2/search",
    "/rest/api/3/search/id",
    "/rest/api/3/expression/eval",
  ].flatMap((pattern) => [
    { method: "GET" as const, pattern, handler: removed },
    { method: "POST" as const, pattern, handler: removed, write: false },
  ]),
];
