import { noteComment } from "./events.js";
import { parseTimestamp } from "./clock.js";
import { json, noContent, type Reply, type RequestContext, type RouteDef } from "./context.js";
import { notFound, validationFailed } from "./errors.js";
import { objectBody, optString, required } from "./input.js";
import { checkBodyLength, issueOr404 } from "./issue-ops.js";
import { paginate } from "./paging.js";
import { renderComment, repoApiUrl } from "./render.js";
import { findIssue, touch, type CommentRecord, type Store } from "./store.js";

/** Comments of one issue (list, create) and of the repository (list, get, update, delete). */
export const commentRoutes: readonly RouteDef[] = [
  {
    method: "GET",
    pattern: "/repos/:owner/:repo/issues/:number/comments",
    handler: listIssueComments,
  },
  {
    method: "POST",
    pattern: "/repos/:owner/:repo/issues/:number/comments",
    handler: createComment,
    creates: true,
  },
  { method: "GET", pattern: "/repos/:owner/:repo/issues/comments", handler: listRepoComments },
  { method: "GET", pattern: "/repos/:owner/:repo/issues/comments/:id", handler: getComment },
  { method: "PATCH", pattern: "/repos/:owner/:repo/issues/comments/:id", handler: updateComment },
  { method: "DELETE", pattern: "/repos/:owner/:repo/issues/comments/:id", handler: deleteComment },
];

function commentOr404(store: Store, id: string | undefined): CommentRecord {
  const c = store.comments.find((x) => x.id === Number(id));
  if (!c) throw notFound();
  return c;
}

function sinceFilter(query: URLSearchParams): (c: CommentRecord) => boolean {
  const text = query.get("since");
  if (text === null) return () => true;
  const since = parseTimestamp(text);
  if (since === undefined) {
    throw validationFailed({
      resource: "IssueComment",
      code: "invalid",
      field: "since",
      value: text,
    });
  }
  const floor = Math.floor(since / 1000) * 1000;
  return (c) => c.updatedAt >= floor;
}

function pageReply(ctx: RequestContext, list: readonly CommentRecord[], base: string): Reply {
  const page = paginate(list, ctx.query, base);
  return json(
    200,
    page.items.map((c) => renderComment(ctx.store, c)),
    page.link === undefined ? {} : { link: page.link },
  );
}

function listIssueComments(ctx: RequestContext): Reply {
  const issue = issueOr404(ctx.store, ctx.params.number);
  const list = ctx.store.comments
    .filter((c) => c.issueNumber === issue.number)
    .filter(sinceFilter(ctx.query));
  return pageReply(ctx, list, `${repoApiUrl(ctx.store)}/issues/${issue.number}/comments`);
}

function listRepoComments(ctx: RequestContext): Reply {
  const sort = ctx.query.get("sort") ?? "created";
  const direction = ctx.query.get("direction") ?? "asc";
  if (!["created", "updated"].includes(sort) || !["asc", "desc"].includes(direction)) {
    throw validationFailed({ resource: "IssueComment", code: "invalid", field: "sort" });
  }
  const key = (c: CommentRecord): number => (sort === "updated" ? c.updatedAt : c.createdAt);
  const sign = direction === "asc" ? 1 : -1;
  const list = ctx.store.comments
    .filter(sinceFilter(ctx.query))
    .sort((a, b) => sign * (key(a) - key(b) || a.id - b.id));
  return pageReply(ctx, list, `${repoApiUrl(ctx.store)}/issues/comments`);
}

function getComment(ctx: RequestContext): Reply {
  return json(200, renderComment(ctx.store, commentOr404(ctx.store, ctx.params.id)));
}

function commentText(body: unknown): string {
  const text = required(objectBody(body), "body", optString) ?? "";
  if (text.trim() === "")
    throw validationFailed({ resource: "IssueComment", code: "missing_field", field: "body" });
  checkBodyLength(text, "IssueComment");
  return text;
}

/** Creating a comment bumps the issue's `comments` count and `updated_at`. */
function createComment(ctx: RequestContext): Reply {
  const { store } = ctx;
  const issue = issueOr404(store, ctx.params.number);
  const body = commentText(ctx.body);
  const now = store.clock.now();
  const comment: CommentRecord = {
    id: store.nextId("comment"),
    issueNumber: issue.number,
    body,
    user: ctx.user.login,
    createdAt: now,
    updatedAt: now,
  };
  store.comments.push(comment);
  noteComment(store, comment.id);
  issue.comments++;
  touch(store, issue);
  return json(201, renderComment(store, comment), {
    location: `${repoApiUrl(store)}/issues/comments/${comment.id}`,
  });
}

function updateComment(ctx: RequestContext): Reply {
  const c = commentOr404(ctx.store, ctx.params.id);
  const body = commentText(ctx.body);
  if (body !== c.body) {
    c.body = body;
    c.updatedAt = Math.max(ctx.store.clock.now(), c.updatedAt + 1000);
  }
  return json(200, renderComment(ctx.store, c));
}

function deleteComment(ctx: RequestContext): Reply {
  const { store } = ctx;
  const c = commentOr404(store, ctx.params.id);
  store.comments = store.comments.filter((x) => x !== c);
  const issue = findIssue(store, c.issueNumber);
  if (issue) {
    issue.comments--;
    touch(store, issue);
  }
  return noContent();
}
