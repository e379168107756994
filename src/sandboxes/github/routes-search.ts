import { listedIssues } from "./consistency.js";
import type { components } from "@octokit/openapi-types";
import { parseTimestamp } from "./clock.js";
import { json, type Reply, type RequestContext, type RouteDef } from "./context.js";
import { GithubError, validationFailed } from "./errors.js";
import { paginate } from "./paging.js";
import { renderIssue, renderLabel, type IssueBody } from "./render.js";
import { findMilestone, type IssueRecord, type Store } from "./store.js";

/**
 * `GET /search/issues` over the one repository, on the separate `search` rate-limit bucket
 * (30/min on github.com). Supported qualifiers: `repo:`, `is:`/`type:` issue|pr|open|closed,
 * `state:`, `label:`, `author:`, `assignee:`, `milestone:`, `no:label|milestone|assignee`,
 * `in:title|body`, `created:`/`updated:` with `>`, `>=`, `<`, `<=`; other words must all occur
 * (case-insensitive). Results: `{total_count, incomplete_results, items}` with `score`; only
 * the first 1,000 results can be paged to, as on GitHub.
 */
export const searchRoutes: readonly RouteDef[] = [
  {
    method: "GET",
    pattern: "/search/issues",
    handler: searchIssues,
    resource: "search",
    conditional: false,
  },
];

type Item = components["schemas"]["issue-search-result-item"];
type Test = (i: IssueRecord) => boolean;

const MAX_RESULTS = 1000;

/** Splits a query into terms, keeping `"quoted phrases"` together. */
function terms(q: string): string[] {
  return [...q.matchAll(/(?:[^\s"]+:)?"[^"]*"|\S+/g)].map((m) => m[0].replaceAll('"', ""));
}

function compare(field: "createdAt" | "updatedAt", expr: string): Test {
  const m = /^(>=|<=|>|<)?(.+)$/.exec(expr);
  const at = parseTimestamp(m?.[2] ?? "");
  if (at === undefined)
    throw validationFailed({ resource: "Search", code: "invalid", field: "q", value: expr });
  const op = m?.[1] ?? ">=";
  return (i) => {
    const v = i[field];
    return op === ">" ? v > at : op === ">=" ? v >= at : op === "<" ? v < at : v <= at;
  };
}

function qualifier(s: Store, key: string, value: string, where: Set<string>): Test | undefined {
  const lower = value.toLowerCase();
  const labelNames = (i: IssueRecord): string[] =>
    i.labels.map((id) => s.labels.find((l) => l.id === id)?.name.toLowerCase() ?? "");
  switch (key) {
    case "repo":
      if (lower !== `${s.owner.login}/${s.repoName}`.toLowerCase()) {
        throw new GithubError(422, "Validation Failed", {
          errors: [
            {
              resource: "Search",
              field: "q",
              code: "invalid",
              message:
                "The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.",
            },
          ],
        });
      }
      return () => true;
    case "is":
    case "type":
    case "state":
      if (lower === "pr" || lower === "pull-request") return () => false;
      if (lower === "open" || lower === "closed") return (i) => i.state === lower;
      return () => true;
    case "label":
      return (i) => labelNames(i).includes(lower);
    case "author":
      return (i) => i.user.toLowerCase() === lower;
    case "assignee":
      return (i) => i.assignees.some((a) => a.toLowerCase() === lower);
    case "milestone":
      return (i) =>
        i.milestone !== null && findMilestone(s, i.milestone)?.title.toLowerCase() === lower;
    case "no":
      if (lower === "label") return (i) => i.labels.length === 0;
      if (lower === "milestone") return (i) => i.milestone === null;
      if (lower === "assignee") return (i) => i.assignees.length === 0;
      return () => true;
    case "in":
      for (const w of lower.split(",")) where.add(w);
      return () => true;
    case "created":
      return compare("createdAt", value);
    case "updated":
      return compare("updatedAt", value);
    default:
      return undefined;
  }
}

function matcher(s: Store, q: string): Test {
  const tests: Test[] = [];
  const words: string[] = [];
  const where = new Set<string>();
  for (const term of terms(q)) {
    const colon = term.indexOf(":");
    const test =
      colon > 0
        ? qualifier(s, term.slice(0, colon).toLowerCase(), term.slice(colon + 1), where)
        : undefined;
    if (test) tests.push(test);
    else words.push(term.toLowerCase());
  }
  const inTitle = where.size === 0 || where.has("title");
  const inBody = where.size === 0 || where.has("body");
  const text = (i: IssueRecord): string =>
    `${inTitle ? i.title : ""}\n${inBody ? (i.body ?? "") : ""}`.toLowerCase();
  return (i) => tests.every((t) => t(i)) && words.every((w) => text(i).includes(w));
}

function searchIssues(ctx: RequestContext): Reply {
  const { store, query } = ctx;
  const q = query.get("q");
  if (q === null || q.trim() === "") {
    throw validationFailed({ resource: "Search", field: "q", code: "missing" });
  }
  const sort = query.get("sort");
  const sign = query.get("order") === "asc" ? 1 : -1;
  const key = (i: IssueRecord): number =>
    sort === "comments"
      ? i.comments
      : sort === "updated"
        ? i.updatedAt
        : sort === "created"
          ? i.createdAt
          : i.number;
  const found = listedIssues(store)
    .filter(matcher(store, q))
    .sort((a, b) => sign * (key(a) - key(b)) || b.number - a.number);
  const page = paginate(found.slice(0, MAX_RESULTS), query, `${store.origin}/search/issues`);
  const items: Item[] = page.items.map((i) => {
    const { body, labels: _labels, ...rest } = renderIssue(store, i) as IssueBody;
    const labels = i.labels.flatMap((id) => {
      const label = store.labels.find((l) => l.id === id);
      return label ? [renderLabel(store, label)] : [];
    });
    return {
      ...rest,
      labels,
      author_association: rest.author_association ?? "NONE",
      ...(body === null || body === undefined ? {} : { body }),
      score: 1,
    };
  });
  return json(
    200,
    { total_count: found.length, incomplete_results: false, items },
    page.link === undefined ? {} : { link: page.link },
  );
}
