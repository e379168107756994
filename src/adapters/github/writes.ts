import { NotFoundError, PayloadInvalidError } from "../../core/errors.js";
import type {
  Comment,
  CommentDraft,
  Iteration,
  IterationDraft,
  WorkItemDraft,
  WorkItemPatch,
} from "../../core/model.js";
import { bodyFor, createBodyFor, patchBodyFor, stateFor, toComment, toIteration } from "./map.js";
import { commentKey, parseIssueBody, withCommentMarker } from "./marker.js";
import { fetchOne, getRawIssue, pages, parse, readIssue, type GithubContext } from "./reads.js";
import {
  rawCommentSchema,
  rawLabelSchema,
  rawMilestoneSchema,
  type RawIssue,
  type RawLabel,
} from "./schema.js";

/** A repository label as the mapping defines it. */
export interface LabelSpec {
  readonly name: string;
  /** Hex without `#`. */
  readonly color?: string | undefined;
  readonly description?: string | undefined;
}

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

export function mustIssue(ctx: GithubContext, data: unknown, operation: string): RawIssue {
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

/** The PATCH body of an update: body rebuilt with the existing marker when it changes. */
export async function updateParams(
  ctx: GithubContext,
  number: string,
  patch: WorkItemPatch,
  milestone: number | null | undefined,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const params: Record<string, unknown> = { ...patchBodyFor(patch.set) };
  if (milestone !== undefined) params.milestone = milestone;
  if (patch.set.description !== undefined || patch.metadata !== undefined) {
    const current = await currentBody(ctx, number, patch, signal);
    params.body = bodyFor({
      description: patch.set.description ?? current.description,
      marker: current.marker,
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
  await fetchOne(ctx, {
    method: "POST",
    url: "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues",
    params: { issue_number: Number(parent), sub_issue_id: subIssueId },
    operation: "issues.addSubIssue",
    id: parent,
    signal,
  });
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

async function listAll<T>(
  ctx: GithubContext,
  url: string,
  operation: string,
  read: (items: unknown[]) => T[],
  signal?: AbortSignal,
): Promise<T[]> {
  const out: T[] = [];
  const first = {
    method: "GET" as const,
    url,
    params: { per_page: 100, state: "all" },
    operation,
    signal,
  };
  for await (const page of pages(ctx, first)) {
    if (page !== "not-modified") out.push(...read(page.items));
  }
  return out;
}

export function listLabels(ctx: GithubContext, signal?: AbortSignal): Promise<RawLabel[]> {
  const operation = "issues.listLabelsForRepo";
  return listAll(
    ctx,
    "/repos/{owner}/{repo}/labels",
    operation,
    (items) => parse(rawLabelSchema.array(), items, { operation }),
    signal,
  );
}

/** Creates the missing labels and fixes colour/description drift; returns what it wrote. */
export async function ensureLabels(
  ctx: GithubContext,
  wanted: readonly LabelSpec[],
  signal?: AbortSignal,
): Promise<{ created: string[]; updated: string[] }> {
  const existing = new Map((await listLabels(ctx, signal)).map((l) => [l.name.toLowerCase(), l]));
  const created: string[] = [];
  const updated: string[] = [];
  for (const spec of wanted) {
    const have = existing.get(spec.name.toLowerCase());
    const color = spec.color?.replace(/^#/, "").toLowerCase();
    const body = {
      ...(color === undefined ? {} : { color }),
      ...(spec.description === undefined ? {} : { description: spec.description }),
    };
    if (have === undefined) {
      await fetchOne(ctx, {
        method: "POST",
        url: "/repos/{owner}/{repo}/labels",
        params: { name: spec.name, ...body },
        operation: "issues.createLabel",
        id: spec.name,
        signal,
      });
      created.push(spec.name);
    } else if (
      (color !== undefined && have.color?.toLowerCase() !== color) ||
      (spec.description !== undefined && (have.description ?? "") !== spec.description)
    ) {
      await fetchOne(ctx, {
        method: "PATCH",
        url: "/repos/{owner}/{repo}/labels/{name}",
        params: { name: have.name, ...body },
        operation: "issues.updateLabel",
        id: spec.name,
        signal,
      });
      updated.push(spec.name);
    }
  }
  return { created, updated };
}

export function listMilestones(ctx: GithubContext, signal?: AbortSignal): Promise<Iteration[]> {
  const operation = "issues.listMilestones";
  return listAll(
    ctx,
    "/repos/{owner}/{repo}/milestones",
    operation,
    (items) => parse(rawMilestoneSchema.array(), items, { operation }).map(toIteration),
    signal,
  );
}

/** The milestone titled like the draft, created (with description and due date) when missing. */
export async function ensureMilestone(
  ctx: GithubContext,
  draft: IterationDraft,
  known: Iteration[] | undefined,
  signal?: AbortSignal,
): Promise<Iteration> {
  const all = known ?? (await listMilestones(ctx, signal));
  const found = all.find((m) => m.name === draft.name);
  if (found !== undefined) return found;
  const operation = "issues.createMilestone";
  const params: Record<string, unknown> = { title: draft.name };
  if (draft.goal !== undefined) params.description = draft.goal;
  if (draft.endDate !== undefined) params.due_on = `${draft.endDate}T00:00:00Z`;
  if (draft.state === "closed") params.state = "closed";
  const res = await fetchOne(ctx, {
    method: "POST",
    url: "/repos/{owner}/{repo}/milestones",
    params,
    operation,
    id: draft.name,
    signal,
  });
  const made = toIteration(parse(rawMilestoneSchema, res.data, { operation }));
  all.push(made);
  return made;
}
