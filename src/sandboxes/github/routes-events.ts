import type { components } from "@octokit/openapi-types";
import { isoSeconds } from "./clock.js";
import { json, type Reply, type RequestContext, type RouteDef } from "./context.js";
import { notFound } from "./errors.js";
import { timelineOrder, type EventRecord } from "./events.js";
import { issueOr404 } from "./issue-ops.js";
import { paginate } from "./paging.js";
import { renderComment, renderIssue, repoApiUrl, userByLogin } from "./render.js";
import type { Store } from "./store.js";

/** GitHub's `issue-event`, plus `state_reason` on close/reopen events as GitHub sends it. */
type IssueEventBody = Omit<components["schemas"]["issue-event"], "issue"> & {
  state_reason?: string | null;
  issue?: unknown;
};

/** Issue events and the timeline: `…/issues/{n}/events`, `…/issues/{n}/timeline`, repo-wide. */
export const eventRoutes: readonly RouteDef[] = [
  { method: "GET", pattern: "/repos/:owner/:repo/issues/events", handler: listRepoEvents },
  { method: "GET", pattern: "/repos/:owner/:repo/issues/events/:id", handler: getEvent },
  { method: "GET", pattern: "/repos/:owner/:repo/issues/:number/events", handler: listEvents },
  { method: "GET", pattern: "/repos/:owner/:repo/issues/:number/timeline", handler: timeline },
];

function renderEvent(s: Store, e: EventRecord): IssueEventBody {
  const body: IssueEventBody = {
    id: e.id,
    node_id: `IE_kwDO${Buffer.from(`IE${e.id}`).toString("base64url")}`,
    url: `${repoApiUrl(s)}/issues/events/${e.id}`,
    actor: userByLogin(s, e.actor),
    event: e.event,
    commit_id: null,
    commit_url: null,
    created_at: isoSeconds(e.createdAt),
    performed_via_github_app: null,
  };
  if (e.label !== undefined) body.label = { name: e.label.name, color: e.label.color };
  if (e.assignee !== undefined) {
    body.assignee = userByLogin(s, e.assignee);
    body.assigner = userByLogin(s, e.actor);
  }
  if (e.milestone !== undefined) body.milestone = { title: e.milestone };
  if (e.rename !== undefined) body.rename = e.rename;
  if (e.lockReason !== undefined) body.lock_reason = e.lockReason;
  if (e.stateReason !== undefined) body.state_reason = e.stateReason;
  return body;
}

function listEvents(ctx: RequestContext): Reply {
  const { store } = ctx;
  const issue = issueOr404(store, ctx.params.number);
  const events = store.eventLog.events.filter((e) => e.issueNumber === issue.number);
  const page = paginate(events, ctx.query, `${repoApiUrl(store)}/issues/${issue.number}/events`);
  const body = page.items.map((e) => renderEvent(store, e));
  return json(200, body, page.link === undefined ? {} : { link: page.link });
}

/** Repository-wide events, newest first, each with its issue. */
function listRepoEvents(ctx: RequestContext): Reply {
  const { store } = ctx;
  const events = [...store.eventLog.events].reverse();
  const page = paginate(events, ctx.query, `${repoApiUrl(store)}/issues/events`);
  const body = page.items.map((e) => withIssue(ctx, e));
  return json(200, body, page.link === undefined ? {} : { link: page.link });
}

function withIssue(ctx: RequestContext, e: EventRecord): IssueEventBody {
  const issue = ctx.store.issues.find((i) => i.number === e.issueNumber);
  const body = renderEvent(ctx.store, e);
  if (issue !== undefined) body.issue = renderIssue(ctx.store, issue, ctx.apiVersion);
  return body;
}

function getEvent(ctx: RequestContext): Reply {
  const e = ctx.store.eventLog.events.find((x) => x.id === Number(ctx.params.id));
  if (e === undefined) throw notFound();
  return json(200, withIssue(ctx, e));
}

/** The timeline: the issue's events and its comments (`commented`), oldest first. */
function timeline(ctx: RequestContext): Reply {
  const { store } = ctx;
  const issue = issueOr404(store, ctx.params.number);
  const entries: { order: number; body: unknown }[] = [
    ...store.eventLog.events
      .filter((e) => e.issueNumber === issue.number)
      .map((e) => ({
        order: timelineOrder(store, "e", e.id),
        body: renderEvent(store, e),
      })),
    ...store.comments
      .filter((c) => c.issueNumber === issue.number)
      .map((c) => {
        const comment = renderComment(store, c);
        return {
          order: timelineOrder(store, "c", c.id),
          body: { ...comment, event: "commented", actor: comment.user },
        };
      }),
  ];
  entries.sort((a, b) => a.order - b.order);
  const page = paginate(entries, ctx.query, `${repoApiUrl(store)}/issues/${issue.number}/timeline`);
  const body = page.items.map((e) => e.body);
  return json(200, body, page.link === undefined ? {} : { link: page.link });
}
