import type { CommentDraft, WorkItem, WorkItemDraft } from "../../core/model.js";
import { importIssue, importPayload } from "./import-api.js";
import { toWorkItem } from "./map.js";
import { getRawIssue, type GithubContext } from "./reads.js";
import { addSubIssue, applyStatus, createRawIssue } from "./writes.js";
import { NotFoundError } from "../../core/errors.js";

export interface CreateDeps {
  readonly ctx: GithubContext;
  /** The milestone number for an iteration name (created when missing). */
  milestoneFor(name: string, signal?: AbortSignal): Promise<number>;
  /** Runs once before the first create (label table). */
  beforeCreate(signal?: AbortSignal): Promise<void>;
  readonly importApi: boolean;
  readonly pollMs: number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Creates one issue: labels, milestone and assignees in the create call itself (or one import
 * call with its comments), then closes it with its reason when needed, then attaches a task to
 * its parent by the child's id.
 */
export async function createItem(
  deps: CreateDeps,
  draft: WorkItemDraft,
  comments: readonly CommentDraft[],
  signal?: AbortSignal,
): Promise<WorkItem> {
  const { ctx } = deps;
  await deps.beforeCreate(signal);
  const milestone =
    draft.iteration === undefined
      ? undefined
      : await deps.milestoneFor(draft.iteration.name, signal);
  let raw;
  if (deps.importApi) {
    const number = await importIssue(
      ctx,
      importPayload(draft, milestone, comments),
      { pollMs: deps.pollMs, sleep: deps.sleep },
      signal,
    );
    raw = await getRawIssue(ctx, number, signal);
    if (raw === undefined) {
      throw new NotFoundError(`GitHub import created #${number}, but it cannot be read`, {
        system: "github",
        operation: "issues.get",
        id: number,
      });
    }
  } else {
    raw = await createRawIssue(ctx, draft, milestone, signal);
  }
  raw = await applyStatus(ctx, raw, draft.status, signal);
  const item = toWorkItem(raw);
  if (draft.kind === "task" && draft.parentId !== undefined) {
    await addSubIssue(ctx, draft.parentId, item.id, signal);
    return { ...item, kind: "task", parentId: draft.parentId };
  }
  return item;
}
