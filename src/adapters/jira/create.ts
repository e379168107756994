import { InternalError, PayloadInvalidError } from "../../core/errors.js";
import type { WorkItem, WorkItemDraft } from "../../core/model.js";
import type { IssueWrite } from "./client.js";
import { markerKey, type JiraContext } from "./context.js";
import { draftToFields, propertyValue } from "./map.js";
import { readByKeys } from "./reads.js";
import { PROPERTY_KEY, rawBulkCreated, type RawBulkCreated, type RawSprint } from "./schema.js";
import { listSprints, moveToSprint, resolveSprint } from "./sprints.js";
import { transitionTo } from "./transition.js";

export const BULK_CREATE_MAX = 50;
const FOLLOW_UP_CONCURRENCY = 8;

interface Created {
  readonly index: number;
  readonly key: string;
  readonly id: number;
  readonly draft: WorkItemDraft;
}

type Result = WorkItem | Error;

/** Creates drafts through bulk create (≤ 50 per call), then sprint moves and transitions. */
export async function createItems(
  ctx: JiraContext,
  drafts: readonly WorkItemDraft[],
  signal?: AbortSignal,
): Promise<Result[]> {
  const results: Result[] = [];
  for (let base = 0; base < drafts.length; base += BULK_CREATE_MAX) {
    signal?.throwIfAborted();
    const chunk = drafts.slice(base, base + BULK_CREATE_MAX);
    results.push(...(await createChunk(ctx, chunk, signal)));
  }
  return results;
}

async function issueWrites(
  ctx: JiraContext,
  chunk: readonly WorkItemDraft[],
): Promise<IssueWrite[]> {
  const site = await ctx.site();
  const createCtx = {
    projectKey: ctx.settings.projectKey,
    storyPointsField: site.storyPointsField,
    storyType: ctx.settings.storyType,
    subtaskType: ctx.settings.subtaskType,
  };
  return chunk.map((d) => ({
    fields: draftToFields(d, createCtx),
    properties: [{ key: PROPERTY_KEY, value: propertyValue(d.marker, d.metadata) }],
  }));
}

async function createChunk(
  ctx: JiraContext,
  chunk: readonly WorkItemDraft[],
  signal?: AbortSignal,
): Promise<Result[]> {
  const writes = await issueWrites(ctx, chunk);
  let body: RawBulkCreated;
  try {
    body = ctx.client.parse(rawBulkCreated, await ctx.api.createIssues(writes), {
      operation: "POST /rest/api/3/issue/bulk",
    });
  } catch (error) {
    return chunk.map(() => asError(error));
  }
  const results: Result[] = new Array<Result>(chunk.length);
  const created = splitBulkAnswer(body, chunk, results);
  for (const c of created) if (c.draft.marker) ctx.created.set(markerKey(c.draft.marker), c.key);
  await followUps(ctx, created, results, signal);
  return results;
}

/** Maps a bulk answer onto the drafts: errors by `failedElementNumber`, successes in order. */
export function splitBulkAnswer(
  body: RawBulkCreated,
  chunk: readonly WorkItemDraft[],
  results: Result[],
): Created[] {
  const failed = new Map(body.errors.map((e) => [e.failedElementNumber, e]));
  const created: Created[] = [];
  let next = 0;
  chunk.forEach((draft, index) => {
    const failure = failed.get(index);
    if (failure) {
      const text = [
        ...(failure.elementErrors?.errorMessages ?? []),
        ...Object.entries(failure.elementErrors?.errors ?? {}).map(([k, v]) => `${k}: ${v}`),
      ].join("; ");
      results[index] = new PayloadInvalidError(
        `Jira rejected issue "${draft.title.slice(0, 80)}" in bulk create (element ${index}${text ? `: ${text}` : ""}).`,
        { system: "jira", operation: "POST /rest/api/3/issue/bulk", status: failure.status },
        {
          hint: "Check the field values against the project's create screen.",
          details: { jiraErrors: failure.elementErrors?.errors },
        },
      );
      return;
    }
    const issue = body.issues[next++];
    if (!issue) {
      results[index] = new InternalError(
        `Jira bulk create answered fewer issues than drafts (element ${index}).`,
      );
      return;
    }
    created.push({ index, key: issue.key, id: Number(issue.id), draft });
  });
  return created;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new InternalError(String(error));
}

async function followUps(
  ctx: JiraContext,
  created: readonly Created[],
  results: Result[],
  signal?: AbortSignal,
): Promise<void> {
  const failed = new Map<string, Error>();
  await moveCreatedToSprints(ctx, created, failed);
  const read = await readByKeys(
    ctx,
    created.map((c) => c.key),
    created.map((c) => c.id),
  );
  const moved = new Set<string>();
  await forEachLimit(created, FOLLOW_UP_CONCURRENCY, async (c) => {
    const item = read.get(c.key);
    if (!item || failed.has(c.key) || item.status === c.draft.status) return;
    const issueType = c.draft.kind === "task" ? ctx.settings.subtaskType : ctx.settings.storyType;
    try {
      await transitionTo(ctx, c.key, c.draft.status, {
        signal,
        current: { status: item.status, issueType },
      });
      moved.add(c.key);
    } catch (error) {
      failed.set(c.key, asError(error));
    }
  });
  const reread = moved.size > 0 ? await readByKeys(ctx, [...moved]) : new Map<string, WorkItem>();
  for (const c of created) {
    const item = reread.get(c.key) ?? read.get(c.key);
    results[c.index] =
      failed.get(c.key) ??
      item ??
      new InternalError(`Jira issue ${c.key} was created but could not be read back.`);
  }
}

async function moveCreatedToSprints(
  ctx: JiraContext,
  created: readonly Created[],
  failed: Map<string, Error>,
): Promise<void> {
  const bySprint = new Map<number, string[]>();
  let cache: RawSprint[] | undefined;
  for (const c of created) {
    const ref = c.draft.iteration;
    if (!ref) continue;
    try {
      if (ref.id === undefined) cache ??= await listSprints(ctx);
      const id = await resolveSprint(ctx, ref, cache);
      bySprint.set(id, [...(bySprint.get(id) ?? []), c.key]);
    } catch (error) {
      failed.set(c.key, asError(error));
    }
  }
  for (const [sprintId, keys] of bySprint) {
    try {
      await moveToSprint(ctx, sprintId, keys);
    } catch (error) {
      for (const k of keys) failed.set(k, asError(error));
    }
  }
}

/** Runs `fn` over items with at most `limit` in flight. */
export async function forEachLimit<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Creates that this tracker started and did not finish (sprint move or transition failed), by
 * marker key. A retry of the create, or a recovery by marker, runs the follow-ups on the issue
 * that exists instead of creating a second one or returning it half done.
 */
export function createUnfinished(ctx: JiraContext) {
  const started = new Map<string, WorkItemDraft>();
  const finish = async (key: string, draft: WorkItemDraft, signal?: AbortSignal) => {
    const results: Result[] = [];
    await followUps(ctx, [{ index: 0, key, id: Number.NaN, draft }], results, signal);
    return results[0];
  };
  const settle = (mk: string, result: Result | undefined): WorkItem => {
    if (result === undefined || result instanceof Error)
      throw result ?? new InternalError("Jira create answered nothing.");
    started.delete(mk);
    return result;
  };
  return {
    async create(draft: WorkItemDraft, signal?: AbortSignal): Promise<WorkItem> {
      if (draft.marker === undefined) {
        const [result] = await createItems(ctx, [draft], signal);
        if (result === undefined || result instanceof Error)
          throw result ?? new InternalError("Jira create answered nothing.");
        return result;
      }
      const mk = markerKey(draft.marker);
      started.set(mk, draft);
      const key = ctx.created.get(mk);
      if (key !== undefined) return settle(mk, await finish(key, draft, signal));
      const [result] = await createItems(ctx, [draft], signal);
      return settle(mk, result);
    },
    /** Finishes a found issue when this tracker's create of it did not finish. */
    async found(item: WorkItem, mk: string, signal?: AbortSignal): Promise<WorkItem> {
      const draft = started.get(mk);
      if (draft === undefined) return item;
      return settle(mk, await finish(item.id, draft, signal));
    },
  };
}
