import { NotFoundError, PayloadInvalidError } from "../../core/errors.js";
import type {
  Comment,
  CommentDraft,
  WorkItemDraft,
  WorkItemFieldName,
  WorkItemFields,
  WorkItemPatch,
} from "../../core/model.js";
import { sameFieldValue, staleError, staleFields } from "../../core/stale-fields.js";
import {
  bodyFor,
  createBodyFor,
  numberFromUrl,
  patchBodyFor,
  stateFor,
  statusOf,
  toComment,
  toWorkItem,
} from "./map.js";
import { commentKey, parseIssueBody, withCommentMarker } from "./marker.js";
import type { GithubContext } from "./context.js";
import { getRawIssue, missingIssue, mustGetRawIssue, readIssue } from "./reads.js";
import { fetchOne, parse } from "./requests.js";
import { dateOf } from "./checkpoint.js";
import { rememberAnswer, rememberComment, rememberIssue, rememberTouch } from "./known-versions.js";
import { rawCommentSchema, rawIssueSchema, type RawIssue } from "./schema.js";

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
  const issue = mustIssue(ctx, res.data, operation);
  rememberIssue(ctx, issue);
  return issue;
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
  const issue = mustIssue(ctx, res.data, operation);
  // The answer also shows what a person changed meanwhile beside what was written.
  rememberAnswer(ctx, issue, params);
  return issue;
}

/** A canonical status as GitHub holds it (`closed` is `closed:completed`). */
function githubStatus(status: string | undefined): string | undefined {
  if (status === undefined) return undefined;
  try {
    return statusOf(stateFor(status));
  } catch {
    return status;
  }
}

/** Field equality as GitHub sees it: logins and labels ignore case, `closed` is completed. */
function sameOnGithub(
  name: WorkItemFieldName,
  a: Partial<WorkItemFields>,
  b: Partial<WorkItemFields>,
) {
  if (name === "status") return githubStatus(a.status) === githubStatus(b.status);
  return sameFieldValue(name, a, b, { foldCase: true });
}

/**
 * Whether the issue is read before an update: planned against `patch.base` (GitHub's PATCH takes
 * no If-Match, so a field a person changed since the run read it is looked for), or a body
 * rebuilt from parts the patch does not all give (the rest is kept from the issue as it is now).
 */
export function readsBeforeUpdate(patch: WorkItemPatch): boolean {
  if (patch.base !== undefined) return true;
  const parts = [patch.set.description, patch.metadata, patch.marker];
  return parts.some((p) => p !== undefined) && parts.some((p) => p === undefined);
}

/**
 * A field being written that a person changed since the run read the issue (as `patch.base`):
 * a `ConflictError` with nothing written.
 */
export function refuseStale(number: string, patch: WorkItemPatch, now: RawIssue): void {
  if (patch.base === undefined) return;
  const fields = staleFields(patch.set, patch.base, toWorkItem(now), sameOnGithub);
  if (fields.length > 0)
    throw staleError({
      system: "github",
      what: `GitHub issue #${number}`,
      id: number,
      operation: "issues.update",
      fields,
    });
}

/**
 * The issue as it is now, when an update will create a milestone first: a stale update must
 * not leave one behind. The update itself reads the issue again in its write's turn.
 */
export async function refuseStaleBefore(
  ctx: GithubContext,
  number: string,
  patch: WorkItemPatch,
  signal?: AbortSignal,
): Promise<void> {
  if (patch.base === undefined) return;
  refuseStale(number, patch, await mustGetRawIssue(ctx, number, signal));
}

/**
 * The PATCH body of an update: body rebuilt with the patch's (or existing) marker when it
 * changes. A body rebuilt for its hidden block alone keeps the description `current` holds (the
 * issue as read in the update's own turn), never the one the run planned against: a person may
 * have edited it since.
 */
export function updateParams(
  patch: WorkItemPatch,
  milestone: number | null | undefined,
  current: RawIssue | undefined,
): Record<string, unknown> {
  const params: Record<string, unknown> = { ...patchBodyFor(patch.set) };
  if (milestone !== undefined) params.milestone = milestone;
  if (
    patch.set.description !== undefined ||
    patch.metadata !== undefined ||
    patch.marker !== undefined
  ) {
    const parsed = parseIssueBody(current?.body);
    params.body = bodyFor({
      description: patch.set.description ?? parsed.description,
      marker: patch.marker ?? parsed.block?.marker,
      metadata: patch.metadata ?? parsed.block?.meta,
    });
  }
  return params;
}

/**
 * Updates an issue and answers it as it is after. When the update needs the issue as it is now
 * (`readsBeforeUpdate`), the GET, the check for a person's edit, the PATCH body and the PATCH are
 * one write of the gate (`client.readThenWrite`): a person's edit made while the update waited
 * for its write slot is seen. Nothing to change sends no PATCH.
 */
export async function updateRawIssue(
  ctx: GithubContext,
  number: string,
  patch: WorkItemPatch,
  milestone: number | null | undefined,
  signal?: AbortSignal,
): Promise<RawIssue> {
  if (!readsBeforeUpdate(patch)) {
    const params = updateParams(patch, milestone, undefined);
    return Object.keys(params).length === 0
      ? mustGetRawIssue(ctx, number, signal)
      : patchIssue(ctx, number, params, signal);
  }
  if (!/^\d+$/.test(number)) throw missingIssue(number);
  const url = "/repos/{owner}/{repo}/issues/{issue_number}";
  const operation = "issues.update";
  let sent: Record<string, unknown> = {};
  let now: RawIssue | undefined;
  const { written } = await ctx.client
    .readThenWrite({
      read: {
        method: "GET",
        url,
        params: { issue_number: Number(number) },
        operation: "issues.get",
        id: number,
      },
      method: "PATCH",
      operation,
      signal,
      build: (read) => {
        now = readIssue(ctx, read.data, "issues.get");
        if (now === undefined) throw missingIssue(number);
        refuseStale(number, patch, now);
        sent = updateParams(patch, milestone, now);
        if (Object.keys(sent).length === 0) return undefined;
        return {
          method: "PATCH",
          url,
          params: { issue_number: Number(number), ...sent },
          operation,
          id: number,
        };
      },
    })
    .catch((error: unknown) => {
      // The read's 404 (or 410): the issue is gone, as `mustGetRawIssue` says it.
      if (error instanceof NotFoundError && error.operation === "issues.get") {
        throw missingIssue(number);
      }
      throw error;
    });
  if (written === undefined) {
    if (now === undefined) throw missingIssue(number);
    return now;
  }
  const issue = mustIssue(ctx, written.data, operation);
  // The answer also shows what a person changed meanwhile beside what was written.
  rememberAnswer(ctx, issue, sent);
  return issue;
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
    const res = await fetchOne(ctx, {
      method: "POST",
      url: "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues",
      params: { issue_number: Number(parent), sub_issue_id: subIssueId },
      operation: "issues.addSubIssue",
      id: parent,
      signal,
    });
    // The answer is the parent; the child changed in the same request.
    const answered = rawIssueSchema.safeParse(res.data);
    if (answered.success && answered.data.number === Number(parent)) {
      rememberAnswer(ctx, answered.data);
      rememberTouch(ctx, Number(child), answered.data.updated_at, dateOf(res.headers.date), parent);
    }
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
  const raw = parse(rawCommentSchema, res.data, { operation: "issues.createComment" });
  rememberComment(ctx, Number(number), raw.updated_at ?? raw.created_at, dateOf(res.headers.date));
  return toComment(raw);
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
