import { NotFoundError, PayloadInvalidError } from "../../core/errors.js";
import type { Comment, CommentDraft, WorkItemDraft, WorkItemPatch } from "../../core/model.js";
import { bodyFor, createBodyFor, numberFromUrl, patchBodyFor, stateFor, toComment } from "./map.js";
import { commentKey, parseIssueBody, withCommentMarker } from "./marker.js";
import type { GithubContext } from "./context.js";
import { getRawIssue, readIssue } from "./reads.js";
import { fetchOne, parse } from "./requests.js";
import { rawCommentSchema, type RawIssue } from "./schema.js";

/** Issue, sub-issue and comment writes (each one paced write, plus reads only where needed). */

export async function createRawIssue(
  ctx: GithubContext,
  draft: WorkItemDraft,
  milestone: number | undefined,
  signal?: AbortSignal,
): Promise<RawIssue> {
  const operation = "issues.create";
  const res = await fetchOne(ctx, {
    method: "POST",
    url: "/repos/{owner}/{repo}/issues",
    params: { ...createBodyFor(draft, milestone) },
    operation,
    signal,
  });
  return mustIssue(ctx, res.data, operation);
}

function mustIssue(ctx: GithubContext, data: unknown, operation: string): RawIssue {
  const issue = readIssue(ctx, data, operation);
  if (issue === undefined) {
    throw new PayloadInvalidError(`GitHub ${operation} returned a pull request`, {
      system: "github",
      operation,
    });
  }
  return issue;
}

export async function patchIssue(
  ctx: GithubContext,
  number: string,
  params: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<RawIssue> {
  const operation = "issues.update";
  const res = await fetchOne(ctx, {
    method: "PATCH",
    url: "/repos/{owner}/{repo}/issues/{issue_number}",
    params: { issue_number: Number(number), ...params },
    operation,
    id: number,
    signal,
  });
  return mustIssue(ctx, res.data, operation);
}

/** The PATCH body of an update: body rebuilt with the patch's (or existing) marker when it changes. */
export async function updateParams(
  ctx: GithubContext,
  number: string,
  patch: WorkItemPatch,
  milestone: number | null | undefined,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const params: Record<string, unknown> = { ...patchBodyFor(patch.set) };
  if (milestone !== undefined) params.milestone = milestone;
  if (
    patch.set.description !== undefined ||
    patch.metadata !== undefined ||
    patch.marker !== undefined
  ) {
    const current = await currentBody(ctx, number, patch, signal);
    params.body = bodyFor({
      description: patch.set.description ?? current.description,
      marker: patch.marker ?? current.marker,
      metadata: patch.metadata ?? current.metadata,
    });
  }
  return params;
}

async function currentBody(
  ctx: GithubContext,
  number: string,
  patch: WorkItemPatch,
  signal?: AbortSignal,
): Promise<Pick<WorkItemDraft, "description" | "marker" | "metadata">> {
  if (patch.base !== undefined) {
    const b = patch.base;
    return { description: b.description, marker: b.marker, metadata: b.metadata };
  }
  const raw = await getRawIssue(ctx, number, signal);
  const parsed = parseIssueBody(raw?.body);
  return {
    description: parsed.description,
    marker: parsed.block?.marker,
    metadata: parsed.block?.meta,
  };
}

/** Closes with the reason when the status says closed (creates always start open). */
export async function applyStatus(
  ctx: GithubContext,
  issue: RawIssue,
  status: string,
  signal?: AbortSignal,
): Promise<RawIssue> {
  const s = stateFor(status);
  if (s.state === "open") return issue;
  if (issue.state === "closed" && issue.state_reason === s.state_reason) return issue;
  return patchIssue(
    ctx,
    String(issue.number),
    { state: "closed", state_reason: s.state_reason },
    signal,
  );
}

/** `POST …/sub_issues` with the child's `id` (read when not cached). */
export async function addSubIssue(
  ctx: GithubContext,
  parent: string,
  child: string,
  signal?: AbortSignal,
): Promise<void> {
  const subIssueId = await idOf(ctx, child, signal);
  try {
    await fetchOne(ctx, {
      method: "POST",
      url: "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues",
      params: { issue_number: Number(parent), sub_issue_id: subIssueId },
      operation: "issues.addSubIssue",
      id: parent,
      signal,
    });
  } catch (error) {
    // Attached by an earlier attempt whose answer was lost: GitHub refuses it again with a 422.
    if (!(error instanceof PayloadInvalidError)) throw error;
    const issue = await getRawIssue(ctx, child, signal);
    if (issue === undefined || numberFromUrl(issue.parent_issue_url) !== parent) throw error;
  }
}

export async function removeSubIssue(
  ctx: GithubContext,
  parent: string,
  child: string,
  signal?: AbortSignal,
): Promise<void> {
  const subIssueId = await idOf(ctx, child, signal);
  await fetchOne(ctx, {
    method: "DELETE",
    url: "/repos/{owner}/{repo}/issues/{issue_number}/sub_issue",
    params: { issue_number: Number(parent), sub_issue_id: subIssueId },
    operation: "issues.removeSubIssue",
    id: parent,
    signal,
  });
}

async function idOf(ctx: GithubContext, number: string, signal?: AbortSignal): Promise<number> {
  const cached = ctx.ids.get(Number(number));
  if (cached !== undefined) return cached;
  const raw = await getRawIssue(ctx, number, signal);
  const id = ctx.ids.get(Number(number));
  if (raw === undefined || id === undefined) {
    throw new NotFoundError(`GitHub issue #${number} does not exist`, {
      system: "github",
      operation: "issues.get",
      id: number,
      status: 404,
    });
  }
  return id;
}

/** Creates a comment carrying the small marker (when the draft has one). */
export async function createComment(
  ctx: GithubContext,
  number: string,
  draft: CommentDraft,
  signal?: AbortSignal,
): Promise<Comment> {
  const res = await fetchOne(ctx, {
    method: "POST",
    url: "/repos/{owner}/{repo}/issues/{issue_number}/comments",
    params: { issue_number: Number(number), body: commentBodyFor(draft) },
    operation: "issues.createComment",
    id: number,
    signal,
  });
  return toComment(parse(rawCommentSchema, res.data, { operation: "issues.createComment" }));
}

export function commentBodyFor(draft: CommentDraft): string {
  if (draft.marker === undefined) return draft.body;
  const author = draft.author.login ?? draft.author.id ?? draft.author.name ?? "";
  return withCommentMarker(draft.body, {
    job: draft.marker.job,
    origin: draft.marker.origin,
    originId: draft.marker.originId,
    key: commentKey({ author, createdAt: draft.createdAt, body: draft.body }),
  });
}

export async function updateComment(
  ctx: GithubContext,
  commentId: string,
  body: string,
  signal?: AbortSignal,
): Promise<Comment> {
  const operation = "issues.updateComment";
  const res = await fetchOne(ctx, {
    method: "PATCH",
    url: "/repos/{owner}/{repo}/issues/comments/{comment_id}",
    params: { comment_id: Number(commentId), body },
    operation,
    id: commentId,
    signal,
  });
  return toComment(parse(rawCommentSchema, res.data, { operation }));
}
