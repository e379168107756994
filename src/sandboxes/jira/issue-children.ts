import {
  JiraHttpError,
  created,
  intParam,
  issueParam,
  noContent,
  notFound,
  ok,
  type Reply,
  type RequestContext,
  type RouteHandler,
} from "./context.js";
import type { IssueRecord } from "./store.js";

/**
 * One kind of record an issue holds a list of (its comments, its worklogs): where the list is,
 * its limit, how it renders and how Jira words a missing one. The routes of both kinds share the
 * finding, adding, getting, deleting and paging below.
 */
export interface IssueChildren<T extends { readonly id: number }> {
  /** As the limit's message names them: `comments`, `worklogs`. */
  readonly plural: string;
  readonly list: (issue: IssueRecord) => T[];
  readonly replace: (issue: IssueRecord, records: T[]) => void;
  readonly limit: (ctx: RequestContext) => number;
  readonly missing: (id: string) => string;
  readonly render: (ctx: RequestContext, issue: IssueRecord, record: T) => unknown;
}

/** The record `:id` names on the issue, else Jira's 404 for it. */
export function findChild<T extends { readonly id: number }>(
  ctx: RequestContext,
  issue: IssueRecord,
  kind: IssueChildren<T>,
): T {
  const found = kind.list(issue).find((x) => String(x.id) === ctx.params.id);
  if (found === undefined) throw notFound(kind.missing(ctx.params.id ?? ""));
  return found;
}

/**
 * Adds the record `make` builds (given the time now) when the issue has room for it, else 413;
 * touches the issue and answers 201 with the record.
 */
export function addChild<T extends { readonly id: number }>(
  ctx: RequestContext,
  issue: IssueRecord,
  kind: IssueChildren<T>,
  make: (now: number) => T,
): Reply {
  const limit = kind.limit(ctx);
  if (kind.list(issue).length >= limit) {
    throw new JiraHttpError(413, [`The issue has reached the limit of ${limit} ${kind.plural}.`]);
  }
  const record = make(ctx.store.now());
  kind.list(issue).push(record);
  ctx.store.touch(issue);
  return created(kind.render(ctx, issue, record));
}

/** GET …/{kind}/:id. */
export function getChild<T extends { readonly id: number }>(kind: IssueChildren<T>): RouteHandler {
  return (ctx) => {
    const issue = issueParam(ctx);
    return ok(kind.render(ctx, issue, findChild(ctx, issue, kind)));
  };
}

/** DELETE …/{kind}/:id: 204, the issue touched. */
export function deleteChild<T extends { readonly id: number }>(
  kind: IssueChildren<T>,
): RouteHandler {
  return (ctx) => {
    const issue = issueParam(ctx);
    const record = findChild(ctx, issue, kind);
    kind.replace(
      issue,
      kind.list(issue).filter((r) => r !== record),
    );
    ctx.store.touch(issue);
    return noContent();
  };
}

/** A page's `startAt` and `maxResults` (at most 5000, `defaultMax` when not given). */
export function pageWindow(
  ctx: RequestContext,
  defaultMax: number,
): { startAt: number; maxResults: number } {
  return {
    startAt: intParam(ctx, "startAt", 0, Number.MAX_SAFE_INTEGER),
    maxResults: intParam(ctx, "maxResults", defaultMax, 5000),
  };
}
