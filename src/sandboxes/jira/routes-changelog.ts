import type { Version3Models } from "jira.js";
import { issueParam, ok, type RequestContext, type RouteDef } from "./context.js";
import { pageWindow } from "./issue-children.js";
import { formatTime, renderUser } from "./render.js";
import { findAccount } from "./site.js";
import type { IssueRecord, StatusChange } from "./store.js";
import { statusById } from "./workflow.js";

const API = "/rest/api/3";

function renderChange(ctx: RequestContext, c: StatusChange): Version3Models.Changelog {
  const { site } = ctx.store;
  const author = findAccount(site, c.authorId);
  return {
    id: String(c.id),
    ...(author && { author: renderUser(ctx.origin, author) }),
    created: formatTime(c.at),
    items: [
      {
        field: "status",
        fieldtype: "jira",
        fieldId: "status",
        from: c.from,
        fromString: statusById(site.workflow, c.from)?.name ?? c.from,
        to: c.to,
        toString: statusById(site.workflow, c.to)?.name ?? c.to,
      },
    ],
  };
}

/**
 * `GET /issue/{key}/changelog`: the issue's changes, oldest first, paged (`startAt`,
 * `maxResults`). The sandbox records status changes only (each transition that moved the issue).
 */
function listChangelog(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const { startAt, maxResults } = pageWindow(ctx, 100);
  const values = issue.statusChanges.slice(startAt, startAt + maxResults);
  const page: Version3Models.PageChangelog = {
    self: `${ctx.origin}${API}/issue/${issue.key}/changelog?startAt=${startAt}&maxResults=${maxResults}`,
    startAt,
    maxResults,
    total: issue.statusChanges.length,
    isLast: startAt + values.length >= issue.statusChanges.length,
    values: values.map((c) => renderChange(ctx, c)),
  };
  return ok(page);
}

/**
 * `GET /issue/{key}?expand=changelog`: every change as `{startAt, maxResults, total, histories}`
 * — the only way to a changelog on Data Center, which has no `/issue/{key}/changelog`.
 */
export function expandedChangelog(ctx: RequestContext, issue: IssueRecord) {
  const histories = issue.statusChanges.map((c) => renderChange(ctx, c));
  return { startAt: 0, maxResults: histories.length, total: histories.length, histories };
}

export const CHANGELOG_ROUTES: readonly RouteDef[] = [
  { method: "GET", pattern: `${API}/issue/:issueIdOrKey/changelog`, handler: listChangelog },
];
