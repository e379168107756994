import { json, type Reply, type RequestContext, type RouteDef } from "./context.js";
import { notFound, validationFailed, type GithubError } from "./errors.js";
import { objectBody, optBoolean, optInteger, required } from "./input.js";
import { issueOr404 } from "./issue-ops.js";
import { paginate } from "./paging.js";
import { renderIssue, repoApiUrl } from "./render.js";
import {
  findIssueById,
  MAX_NESTING,
  MAX_SUB_ISSUES,
  touch,
  type IssueRecord,
  type Store,
} from "./store.js";

/**
 * Sub-issues: children are named by their `id` (not `number`); at most 100 per parent and 8
 * levels of nesting; one parent per child (`replace_parent` moves it); no cycles.
 */
export const subIssueRoutes: readonly RouteDef[] = [
  {
    method: "GET",
    pattern: "/repos/:owner/:repo/issues/:number/sub_issues",
    handler: listSubIssues,
  },
  {
    method: "POST",
    pattern: "/repos/:owner/:repo/issues/:number/sub_issues",
    handler: addSubIssue,
    creates: true,
  },
  {
    method: "DELETE",
    pattern: "/repos/:owner/:repo/issues/:number/sub_issue",
    handler: removeSubIssue,
  },
  {
    method: "PATCH",
    pattern: "/repos/:owner/:repo/issues/:number/sub_issues/priority",
    handler: reprioritize,
  },
  { method: "GET", pattern: "/repos/:owner/:repo/issues/:number/parent", handler: getParent },
];

function subIssueError(message: string): GithubError {
  return validationFailed({ resource: "Issue", code: "custom", field: "sub_issue_id", message });
}

function childOf(store: Store, body: unknown, field = "sub_issue_id"): IssueRecord {
  const id = required(objectBody(body), field, optInteger);
  const child = id === null || id === undefined ? undefined : findIssueById(store, id);
  // Issues of another owner, or ids that do not exist, are not visible here.
  if (!child) throw notFound();
  return child;
}

function listSubIssues(ctx: RequestContext): Reply {
  const { store } = ctx;
  const parent = issueOr404(store, ctx.params.number);
  const children = parent.subIssues.flatMap((id) => {
    const c = findIssueById(store, id);
    return c ? [c] : [];
  });
  const page = paginate(
    children,
    ctx.query,
    `${repoApiUrl(store)}/issues/${parent.number}/sub_issues`,
  );
  return json(
    200,
    page.items.map((c) => renderIssue(store, c, ctx.apiVersion)),
    page.link === undefined ? {} : { link: page.link },
  );
}

function depthAbove(store: Store, issue: IssueRecord): number {
  let depth = 0;
  for (let p = issue; p.parentId !== null; depth++) {
    const next = findIssueById(store, p.parentId);
    if (!next) break;
    p = next;
  }
  return depth;
}

function heightBelow(store: Store, issue: IssueRecord): number {
  let max = 0;
  for (const id of issue.subIssues) {
    const c = findIssueById(store, id);
    if (c) max = Math.max(max, 1 + heightBelow(store, c));
  }
  return max;
}

function isAncestor(store: Store, candidate: IssueRecord, issue: IssueRecord): boolean {
  for (let p: IssueRecord | undefined = issue; p;) {
    if (p === candidate) return true;
    p = p.parentId === null ? undefined : findIssueById(store, p.parentId);
  }
  return false;
}

function detach(store: Store, child: IssueRecord): void {
  const old = child.parentId === null ? undefined : findIssueById(store, child.parentId);
  if (old) {
    old.subIssues = old.subIssues.filter((id) => id !== child.id);
    touch(store, old);
  }
  child.parentId = null;
}

function addSubIssue(ctx: RequestContext): Reply {
  const { store } = ctx;
  const parent = issueOr404(store, ctx.params.number);
  const child = childOf(store, ctx.body);
  const replace = optBoolean(objectBody(ctx.body), "replace_parent") ?? false;
  if (parent.subIssues.includes(child.id))
    throw subIssueError("Issue is already a sub-issue of this parent");
  if (isAncestor(store, child, parent))
    throw subIssueError("Issue cannot be a sub-issue of itself or of its own sub-issue");
  if (child.parentId !== null && !replace)
    throw subIssueError("Issue may not contain duplicate sub-issues and can only have one parent");
  if (parent.subIssues.length >= MAX_SUB_ISSUES) {
    throw subIssueError(`Parent issue cannot have more than ${MAX_SUB_ISSUES} sub-issues`);
  }
  // Levels: the parent's ancestors + the parent + the child's own subtree.
  if (depthAbove(store, parent) + 2 + heightBelow(store, child) > MAX_NESTING) {
    throw subIssueError(`Sub-issues cannot be nested more than ${MAX_NESTING} levels deep`);
  }
  detach(store, child);
  parent.subIssues.push(child.id);
  child.parentId = parent.id;
  touch(store, parent);
  touch(store, child);
  return json(201, renderIssue(store, parent, ctx.apiVersion), {
    location: `${repoApiUrl(store)}/issues/${parent.number}/sub_issues`,
  });
}

function removeSubIssue(ctx: RequestContext): Reply {
  const { store } = ctx;
  const parent = issueOr404(store, ctx.params.number);
  const child = childOf(store, ctx.body);
  if (!parent.subIssues.includes(child.id)) throw notFound();
  detach(store, child);
  touch(store, child);
  return json(200, renderIssue(store, parent, ctx.apiVersion));
}

function reprioritize(ctx: RequestContext): Reply {
  const { store } = ctx;
  const parent = issueOr404(store, ctx.params.number);
  const b = objectBody(ctx.body);
  const child = childOf(store, b);
  const after = optInteger(b, "after_id");
  const before = optInteger(b, "before_id");
  if ((after === undefined || after === null) === (before === undefined || before === null)) {
    throw validationFailed({
      resource: "Issue",
      code: "custom",
      field: "after_id",
      message: "Specify exactly one of after_id or before_id",
    });
  }
  if (!parent.subIssues.includes(child.id)) throw notFound();
  const anchor = after ?? before ?? 0;
  const rest = parent.subIssues.filter((id) => id !== child.id);
  const at = rest.indexOf(anchor);
  if (at < 0) throw notFound();
  rest.splice(after !== undefined && after !== null ? at + 1 : at, 0, child.id);
  parent.subIssues = rest;
  touch(store, parent);
  return json(200, renderIssue(store, parent, ctx.apiVersion));
}

function getParent(ctx: RequestContext): Reply {
  const { store } = ctx;
  const child = issueOr404(store, ctx.params.number);
  const parent = child.parentId === null ? undefined : findIssueById(store, child.parentId);
  if (!parent) throw notFound();
  return json(200, renderIssue(store, parent, ctx.apiVersion));
}
