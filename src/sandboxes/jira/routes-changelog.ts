import type { Version3Models } from "jira.js";
import { issueParam, ok, type RequestContext, type RouteDef } from "./context.js";
import { pageWindow } from "./issue-children.js";
import { formatTime, renderUser } from "./render.js";
import { findAccount } from "./site.js";
import { nextChangeId, type FieldChange, type IssueRecord, type StatusChange } from "./store.js";
import { issueChangelog } from "./webhook-changelog.js";
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

function renderEdit(ctx: RequestContext, c: FieldChange): Version3Models.Changelog {
  const author = findAccount(ctx.store.site, c.authorId);
  return {
    id: String(c.id),
    ...(author && { author: renderUser(ctx.origin, author) }),
    created: formatTime(c.at),
    // Jira answers `null` for an empty side (jira.js types every side as a string).
    items: c.items.map((i) => ({ ...i })) as unknown as Version3Models.ChangeDetails[],
  };
}

/** Every entry of the issue's changelog, oldest first: its transitions and its edits. */
function histories(ctx: RequestContext, issue: IssueRecord): Version3Models.Changelog[] {
  const all = [
    ...issue.statusChanges.map((c) => ({ c, render: () => renderChange(ctx, c) })),
    ...issue.fieldChanges.map((c) => ({ c, render: () => renderEdit(ctx, c) })),
  ];
  return all.sort((a, b) => a.c.at - b.c.at || a.c.id - b.c.id).map((e) => e.render());
}

/**
 * Records an edit of `issue` in its changelog: what changed since `before` (a copy taken before
 * the edit), by the request's user. An edit that changed nothing records nothing, as in Jira.
 */
export function recordEdit(ctx: RequestContext, before: IssueRecord, issue: IssueRecord): void {
  const items = issueChangelog(ctx.store, before, issue).filter(
    (i) => i.fieldId !== "status" && i.fieldId !== "timespent",
  );
  if (items.length === 0) return;
  issue.fieldChanges.push({
    id: nextChangeId(issue),
    at: issue.updated,
    authorId: ctx.user.accountId,
    items,
  });
}

/**
 * `GET /issue/{key}/changelog`: the issue's changes, oldest first, paged (`startAt`,
 * `maxResults`). The sandbox records transitions that moved the issue, edits of its fields
 * (`PUT /issue/{key}`, assigns) and sprint moves.
 */
function listChangelog(ctx: RequestContext) {
  const issue = issueParam(ctx);
  const { startAt, maxResults } = pageWindow(ctx, 100);
  const all = histories(ctx, issue);
  const values = all.slice(startAt, startAt + maxResults);
  const page: Version3Models.PageChangelog = {
    self: `${ctx.origin}${API}/issue/${issue.key}/changelog?startAt=${startAt}&maxResults=${maxResults}`,
    startAt,
    maxResults,
    total: all.length,
    isLast: startAt + values.length >= all.length,
    values,
  };
  return ok(page);
}

/**
 * `GET /issue/{key}?expand=changelog`: every change as `{startAt, maxResults, total, histories}`
 * — the only way to a changelog on Data Center, which has no `/issue/{key}/changelog`.
 */
export function expandedChangelog(ctx: RequestContext, issue: IssueRecord) {
  const all = histories(ctx, issue);
  return { startAt: 0, maxResults: all.length, total: all.length, histories: all };
}

export const CHANGELOG_ROUTES: readonly RouteDef[] = [
  { method: "GET", pattern: `${API}/issue/:issueIdOrKey/changelog`, handler: listChangelog },
];
