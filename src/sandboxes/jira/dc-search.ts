/**
 * Jira Data Center's search: `GET/POST /rest/api/2/search` with `startAt` paging and a `total`
 * (there is no `/search/jql` and no page token). Unbounded JQL is allowed; `maxResults` defaults
 * to 50 and is capped at 1000 (`jira.search.views.default.max`). As on Jira 11, `startAt +
 * maxResults` may not pass the search platform's `maxResultWindow` (a 400 saying so); every page
 * names the window, and `GET /searchLimits/maxResultWindow` answers it.
 */
import { isRecord, ok, badRequest, type RequestContext } from "./context.js";
import { fieldNames, parseFieldSelection, renderIssue } from "./render-issue.js";
import { listOf, matchIssues } from "./routes-search.js";

const MAX_RESULTS = 1000;

interface DcSearchInput {
  readonly jql: string;
  readonly startAt: number;
  readonly maxResults: number;
  readonly fields: unknown;
  readonly expand: string;
  readonly properties: readonly string[];
}

function count(raw: unknown, name: string, fallback: number): number {
  if (raw === undefined || raw === null || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0)
    throw badRequest(
      `The '${name}' parameter must be a non-negative integer (got '${JSON.stringify(raw)}').`,
    );
  return n;
}

function fromQuery(q: URLSearchParams): DcSearchInput {
  return {
    jql: q.get("jql") ?? "",
    startAt: count(q.get("startAt"), "startAt", 0),
    maxResults: count(q.get("maxResults"), "maxResults", 50),
    fields: q.getAll("fields").join(","),
    expand: q.get("expand") ?? "",
    properties: listOf(q.getAll("properties").join(",")),
  };
}

function fromBody(body: unknown): DcSearchInput {
  const b = isRecord(body) ? body : {};
  return {
    jql: typeof b.jql === "string" ? b.jql : "",
    startAt: count(b.startAt, "startAt", 0),
    maxResults: count(b.maxResults, "maxResults", 50),
    fields: b.fields,
    expand: Array.isArray(b.expand)
      ? b.expand.join(",")
      : typeof b.expand === "string"
        ? b.expand
        : "",
    properties: listOf(b.properties),
  };
}

function search(ctx: RequestContext, input: DcSearchInput) {
  const matched = matchIssues(ctx, { jql: input.jql, reconcileIssues: [] }, false);
  const selection = parseFieldSelection(input.fields, "*navigable");
  const maxResults = Math.min(input.maxResults, MAX_RESULTS);
  const window = ctx.store.site.maxResultWindow;
  if (input.startAt + maxResults > window)
    throw badRequest(
      `Result window is too large, startAt + maxResults must be less than or equal to: [${window}] but was [${input.startAt + maxResults}]. Narrow the query (for example by key or updated ranges) instead of paging deeper.`,
    );
  const issues = matched.slice(input.startAt, input.startAt + maxResults).map((issue) =>
    renderIssue(ctx.origin, ctx.store, issue, {
      fields: selection,
      properties: input.properties,
    }),
  );
  const body: Record<string, unknown> = {
    expand: "schema,names",
    startAt: input.startAt,
    maxResults,
    total: matched.length,
    issues,
    maxResultWindow: window,
  };
  if (input.expand.split(",").includes("names")) body.names = fieldNames(ctx.store.site, selection);
  return ok(body);
}

export const dcSearchGet = (ctx: RequestContext) => search(ctx, fromQuery(ctx.query));
export const dcSearchPost = (ctx: RequestContext) => search(ctx, fromBody(ctx.body));

/** `GET /searchLimits/maxResultWindow` (DC 11.3): how deep `startAt` paging goes. */
export const dcMaxResultWindow = (ctx: RequestContext) => ok(ctx.store.site.maxResultWindow);
