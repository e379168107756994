import { NotFoundError, PayloadInvalidError } from "../../core/errors.js";
import type { UserRef, WorkItem } from "../../core/model.js";
import type { GithubRequest } from "./client.js";
import type { GithubContext } from "./context.js";
import { toUser, toWorkItem } from "./map.js";
import {
  rawCommentSchema,
  rawIssueSchema,
  rawUserSchema,
  type RawComment,
  type RawIssue,
} from "./schema.js";
import { fetchOne, pages, parse } from "./requests.js";
import { issueIdentity, issueOrUnreadable, type OnUnreadable } from "./unreadable.js";

/** Parses one raw issue and remembers its id; pull requests give `undefined`. */
export function readIssue(
  ctx: GithubContext,
  data: unknown,
  operation: string,
): RawIssue | undefined {
  const issue = parse(rawIssueSchema, data, { operation });
  ctx.ids.set(issue.number, issue.id);
  if (issue.node_id !== undefined) ctx.nodeIds.set(issue.number, issue.node_id);
  return issue.pull_request === undefined ? issue : undefined;
}

/** All comments of an issue (paged). */
export async function listRawComments(
  ctx: GithubContext,
  number: number,
  signal?: AbortSignal,
): Promise<RawComment[]> {
  const out: RawComment[] = [];
  const operation = "issues.listComments";
  const first: GithubRequest = {
    method: "GET",
    url: "/repos/{owner}/{repo}/issues/{issue_number}/comments",
    params: { issue_number: number, per_page: 100 },
    operation,
    id: String(number),
    signal,
  };
  for await (const page of pages(ctx, first)) {
    if (page === "not-modified") break;
    for (const raw of page.items) out.push(readComment(raw, number, operation));
  }
  return out;
}

/** One comment of an issue, validated on its own: a bad one is named by its id. */
function readComment(raw: unknown, number: number, operation: string): RawComment {
  const id = (raw as { id?: unknown } | null)?.id;
  const comment = typeof id === "number" ? `comment ${String(id)}` : "a comment";
  try {
    return parse(rawCommentSchema, raw, { operation, id: String(number) });
  } catch (error) {
    if (!(error instanceof PayloadInvalidError)) throw error;
    throw new PayloadInvalidError(
      error.message.replace(
        /answered an unexpected payload: /,
        `answered an unexpected payload for ${comment}: `,
      ),
      { system: "github", operation, id: String(number), status: error.status },
      { hint: error.hint, cause: error },
    );
  }
}

/** A raw issue as a work item, reading its comments only when it has some. */
export async function loadItem(
  ctx: GithubContext,
  issue: RawIssue,
  signal?: AbortSignal,
): Promise<WorkItem> {
  const comments = issue.comments > 0 ? await listRawComments(ctx, issue.number, signal) : [];
  return toWorkItem(issue, comments);
}

/** One issue by number; `undefined` when missing, deleted or a pull request. */
export async function getRawIssue(
  ctx: GithubContext,
  number: string,
  signal?: AbortSignal,
  /** Given, a 404 (not seen, where a deleted issue is a 410) is handed here, not taken for gone. */
  onInvisible?: (error: NotFoundError) => void,
): Promise<RawIssue | undefined> {
  if (!/^\d+$/.test(number)) return undefined;
  const operation = "issues.get";
  try {
    const res = await fetchOne(ctx, {
      method: "GET",
      url: "/repos/{owner}/{repo}/issues/{issue_number}",
      params: { issue_number: Number(number) },
      operation,
      id: number,
      signal,
    });
    return readIssue(ctx, res.data, operation);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    if (err.status === 404) onInvisible?.(err);
    return undefined;
  }
}

/**
 * Every issue of the repository (pull requests skipped), oldest update first. With
 * `onUnreadable`, an issue whose payload fails validation is handed there and left out.
 */
export async function* listRawIssues(
  ctx: GithubContext,
  signal?: AbortSignal,
  onUnreadable?: OnUnreadable,
): AsyncGenerator<RawIssue> {
  const operation = "issues.listForRepo";
  const first: GithubRequest = {
    method: "GET",
    url: "/repos/{owner}/{repo}/issues",
    params: { state: "all", sort: "updated", direction: "asc", per_page: 100 },
    operation,
    signal,
  };
  for await (const page of pages(ctx, first)) {
    if (page === "not-modified") return;
    for (const raw of page.items) {
      const issue = await issueOrUnreadable(issueIdentity(raw), onUnreadable, () =>
        readIssue(ctx, raw, operation),
      );
      if (issue !== undefined) yield issue;
    }
  }
}

/** One issue by number; missing → `NotFoundError`. */
export async function mustGetRawIssue(
  ctx: GithubContext,
  number: string,
  signal?: AbortSignal,
): Promise<RawIssue> {
  const raw = await getRawIssue(ctx, number, signal);
  if (raw === undefined) throw missingIssue(number);
  return raw;
}

/** What reading an issue that does not exist (or is a pull request) fails with. */
export function missingIssue(number: string): NotFoundError {
  return new NotFoundError(`GitHub issue #${number} does not exist`, {
    system: "github",
    operation: "issues.get",
    id: number,
    status: 404,
  });
}

/**
 * The sub-issues of a parent (paged). With `onUnreadable`, one whose payload fails validation is
 * handed there as a task (a sub-issue is one, whatever its payload says) and left out; a page
 * that is no list fails the whole read.
 */
export async function listSubIssuesRaw(
  ctx: GithubContext,
  parent: string,
  signal?: AbortSignal,
  onUnreadable?: OnUnreadable,
): Promise<RawIssue[]> {
  const operation = "issues.listSubIssues";
  const out: RawIssue[] = [];
  const first: GithubRequest = {
    method: "GET",
    url: "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues",
    params: { issue_number: Number(parent), per_page: 100 },
    operation,
    id: parent,
    signal,
  };
  for await (const page of pages(ctx, first)) {
    if (page === "not-modified") continue;
    for (const raw of page.items) {
      const who = issueIdentity(raw);
      const issue = await issueOrUnreadable(
        who === undefined ? undefined : { ...who, kind: "task" },
        onUnreadable,
        () => readIssue(ctx, raw, operation),
      );
      if (issue !== undefined) out.push(issue);
    }
  }
  return out;
}

/** The users issues can be assigned to (`GET /assignees`: read access is enough). */
export async function listAssignees(ctx: GithubContext, signal?: AbortSignal): Promise<UserRef[]> {
  const operation = "issues.listAssignees";
  const out: UserRef[] = [];
  const first: GithubRequest = {
    method: "GET",
    url: "/repos/{owner}/{repo}/assignees",
    params: { per_page: 100 },
    operation,
    signal,
  };
  for await (const page of pages(ctx, first)) {
    if (page === "not-modified") continue;
    out.push(
      ...parse(rawUserSchema.array(), page.items, { operation }).map((u) => toUser(u.login)),
    );
  }
  return out;
}
