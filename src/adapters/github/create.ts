import type { CommentDraft, WorkItem, WorkItemDraft } from "../../core/model.js";
import { importIssue, importPayload } from "./import-api.js";
import { numberFromUrl, toWorkItem } from "./map.js";
import { markerKey } from "./marker.js";
import type { GithubContext } from "./context.js";
import { getRawIssue } from "./reads.js";
import type { RawIssue } from "./schema.js";
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
  return finishItem(ctx, raw, draft, signal);
}

/**
 * The steps after the issue exists: close it with its reason, attach a task to its parent.
 * Idempotent (skips what the issue already shows), so a create that failed half-way is finished
 * by running it again on the issue as it is now.
 */
async function finishItem(
  ctx: GithubContext,
  created: RawIssue,
  draft: WorkItemDraft,
  signal?: AbortSignal,
): Promise<WorkItem> {
  const raw = await applyStatus(ctx, created, draft.status, signal);
  const item = toWorkItem(raw);
  if (draft.kind === "task" && draft.parentId !== undefined) {
    if (numberFromUrl(raw.parent_issue_url) !== draft.parentId) {
      await addSubIssue(ctx, draft.parentId, item.id, signal);
    }
    return { ...item, kind: "task", parentId: draft.parentId };
  }
  return item;
}

/**
 * Creates that this tracker started and did not finish, by marker key. A retry of the create
 * (after a rate limit on a later step) or a recovery by marker (after an ambiguous failure)
 * finishes the issue that exists instead of creating a second one or returning it half done.
 */
export function createUnfinished() {
  const started = new Map<string, { draft: WorkItemDraft; raw?: RawIssue | undefined }>();
  return {
    async create(deps: CreateDeps, draft: WorkItemDraft, signal?: AbortSignal): Promise<WorkItem> {
      if (draft.marker === undefined || deps.importApi) return createItem(deps, draft, [], signal);
      const key = markerKey(draft.marker);
      const entry = started.get(key) ?? { draft };
      started.set(key, entry);
      if (entry.raw === undefined) {
        await deps.beforeCreate(signal);
        const milestone =
          draft.iteration === undefined
            ? undefined
            : await deps.milestoneFor(draft.iteration.name, signal);
        entry.raw = await createRawIssue(deps.ctx, draft, milestone, signal);
      }
      const item = await finishItem(deps.ctx, entry.raw, draft, signal);
      started.delete(key);
      return item;
    },
    /** Finishes a found issue when this tracker's create of it did not finish. */
    async found(ctx: GithubContext, key: string, raw: RawIssue, signal?: AbortSignal) {
      const entry = started.get(key);
      if (entry === undefined) return undefined;
      const item = await finishItem(ctx, raw, entry.draft, signal);
      started.delete(key);
      return item;
    },
  };
}
