import { InternalError, PayloadInvalidError } from "../../core/errors.js";
import type { WorkItem, WorkItemDraft } from "../../core/model.js";
import type { IssueWrite } from "./client.js";
import { markerKey, type JiraContext } from "./context.js";
import { draftToFields, propertyValue } from "./map.js";
import { getItem, readByKeys } from "./reads.js";
import { PROPERTY_KEY, rawBulkCreated, type RawBulkCreated, type RawCreated } from "./schema.js";
import { resolveSprint } from "./sprints.js";
import { httpShape, isRecord } from "./errors.js";
import { firstStepOnCreate, knownStatuses, learnWhileReading, transitionTo } from "./transition.js";
import type { WorkflowEdge } from "./workflow.js";

export const BULK_CREATE_MAX = 50;
/** At most this many drafts are created alone to learn the workflow (per createItems call). */
export const MAX_PROBES = 8;
const BULK_OPERATION = "POST /rest/api/3/issue/bulk";

interface Created {
  readonly index: number;
  readonly key: string;
  readonly id: number;
  readonly draft: WorkItemDraft;
  /** The create's answer to its `transition`, when it carried one. */
  readonly transition?: RawCreated["transition"];
}

/** An issue to finish: its status when known, and whether it is as the create left it. */
interface FollowUp {
  readonly index: number;
  readonly key: string;
  readonly id: number;
  readonly draft: WorkItemDraft;
  readonly status: string | undefined;
  /** Created just now without a transition: its status is the issue type's initial status. */
  readonly initial: boolean;
}

/** One element of a bulk create (IssueUpdateDetails), with the transition Jira makes on create. */
interface CreateWrite extends IssueWrite {
  readonly transition?: { readonly id: string } | undefined;
}

interface Planned {
  readonly draft: WorkItemDraft;
  readonly issueType: string;
  readonly write: CreateWrite;
  /** The first step towards the draft's status, made by the create itself. */
  readonly step: WorkflowEdge | undefined;
}

type Result = WorkItem | Error;

/**
 * Creates drafts through bulk create (≤ 50 per call). Each create carries the story's sprint and
 * the first transition towards the draft's status; the remaining transitions follow, then one
 * read-back per chunk. While the workflow is not known well enough for that, a probe goes first
 * (`nextProbe`); the next creates go as soon as its walk has taught the workflow, while the probe
 * is still being read back.
 */
async function createItems(
  ctx: JiraContext,
  drafts: readonly WorkItemDraft[],
  signal?: AbortSignal,
): Promise<Result[]> {
  const results: Result[] = new Array<Result>(drafts.length);
  const store = (part: readonly { index: number }[], answers: readonly Result[]) => {
    part.forEach(({ index }, i) => {
      results[index] = answers[i] ?? new InternalError("Jira create answered nothing.");
    });
  };
  let pending = drafts.map((draft, index) => ({ draft, index }));
  const probed = new Set<string>();
  /** The probes' creates finishing (their read-backs), awaited before returning. */
  const finishing: Promise<void>[] = [];
  try {
    for (let n = 0; n < MAX_PROBES; n++) {
      const probe = nextProbe(ctx, pending, probed);
      if (probe === undefined) break;
      signal?.throwIfAborted();
      probed.add(`${issueTypeOf(ctx, probe.draft)}|${probe.draft.status}`);
      let walked = (): void => undefined;
      const learnt = new Promise<void>((resolve) => (walked = resolve));
      const done = createChunk(ctx, [probe.draft], signal, walked).then((answers) => {
        store([probe], answers);
      });
      done.catch(() => undefined); // awaited below
      finishing.push(done);
      await Promise.race([learnt, done]);
      pending = pending.filter((e) => e !== probe);
    }
    for (let base = 0; base < pending.length; base += BULK_CREATE_MAX) {
      signal?.throwIfAborted();
      const part = pending.slice(base, base + BULK_CREATE_MAX);
      store(
        part,
        await createChunk(
          ctx,
          part.map((e) => e.draft),
          signal,
        ),
      );
    }
  } finally {
    await Promise.allSettled(finishing);
  }
  await Promise.all(finishing);
  return results;
}

/**
 * A draft to create on its own first, while the workflow is not known well enough for the others'
 * creates to carry their first transition: for an issue type whose initial status is unknown (when
 * its drafts go to more than one status), or for a status no known path leads to (when more drafts
 * go there). Its follow-ups learn the initial status and the transitions on the way.
 */
function nextProbe<T extends { readonly draft: WorkItemDraft }>(
  ctx: JiraContext,
  pending: readonly T[],
  probed: ReadonlySet<string>,
): T | undefined {
  const statuses = new Map<string, Set<string>>();
  const counts = new Map<string, number>();
  for (const { draft } of pending) {
    const type = issueTypeOf(ctx, draft);
    statuses.set(type, (statuses.get(type) ?? new Set<string>()).add(draft.status));
    const key = `${type}|${draft.status}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return pending.find(({ draft }) => {
    const type = issueTypeOf(ctx, draft);
    const key = `${type}|${draft.status}`;
    if (probed.has(key)) return false;
    const initial = ctx.initialStatus.get(type);
    if (initial === undefined) return (statuses.get(type)?.size ?? 0) > 1;
    if (draft.status === initial || firstStepOnCreate(ctx, type, draft.status)) return false;
    return (counts.get(key) ?? 0) > 1;
  });
}

function issueTypeOf(ctx: JiraContext, draft: WorkItemDraft): string {
  return draft.kind === "task" ? ctx.settings.subtaskType : ctx.settings.storyType;
}

/** The create payloads; a draft whose sprint cannot be resolved is an error (nothing created). */
async function planWrites(
  ctx: JiraContext,
  chunk: readonly WorkItemDraft[],
): Promise<(Planned | Error)[]> {
  const site = await ctx.site();
  const createCtx = {
    projectKey: ctx.settings.projectKey,
    storyPointsField: site.storyPointsField,
    storyType: ctx.settings.storyType,
    subtaskType: ctx.settings.subtaskType,
    sprintField: site.sprintField,
  };
  const planned: (Planned | Error)[] = [];
  for (const draft of chunk) {
    let sprintId: number | undefined;
    // A sub-task follows its parent's sprint: Jira sets it, the create must not.
    if (draft.kind !== "task" && draft.iteration !== undefined) {
      try {
        sprintId = await resolveSprint(ctx, draft.iteration);
      } catch (error) {
        planned.push(asError(error));
        continue;
      }
    }
    const issueType = issueTypeOf(ctx, draft);
    const step = firstStepOnCreate(ctx, issueType, draft.status);
    planned.push({
      draft,
      issueType,
      step: step?.edge,
      write: {
        fields: draftToFields(draft, createCtx, { sprintId, transitionFields: step?.fields }),
        properties: [{ key: PROPERTY_KEY, value: propertyValue(draft.marker, draft.metadata) }],
        ...(step && { transition: { id: step.edge.id } }),
      },
    });
  }
  return planned;
}

/** A created-issues answer: Jira answers 400 with the same body when every element failed. */
function bulkBody(error: unknown): unknown {
  const shape = httpShape(error);
  if (shape?.status === 400 && isRecord(shape.data) && Array.isArray(shape.data.errors))
    return shape.data;
  throw error;
}

/** `POST /rest/api/3/issue/bulk` with each element's `transition` (IssueUpdateDetails). */
function sendCreates(ctx: JiraContext, writes: readonly CreateWrite[]): Promise<unknown> {
  return ctx.client.send({
    operation: BULK_OPERATION,
    kind: "issue.bulkCreate",
    write: true,
    call: ({ v3 }) =>
      v3.issues
        .createIssues<unknown>({
          issueUpdates: writes.map((w) => ({
            ...(w.fields && { fields: w.fields }),
            ...(w.update && { update: w.update }),
            ...(w.properties && {
              properties: w.properties.map((p) => ({ key: p.key, value: p.value })),
            }),
            ...(w.transition && { transition: { id: w.transition.id } }),
          })),
        })
        .catch(bulkBody),
  });
}

async function createChunk(
  ctx: JiraContext,
  chunk: readonly WorkItemDraft[],
  signal?: AbortSignal,
  walked?: () => void,
): Promise<Result[]> {
  const results: Result[] = new Array<Result>(chunk.length);
  const planned = await planWrites(ctx, chunk);
  const sent: { index: number; plan: Planned }[] = [];
  planned.forEach((plan, index) => {
    if (plan instanceof Error) results[index] = plan;
    else sent.push({ index, plan });
  });
  if (sent.length === 0) return results;
  let body: RawBulkCreated;
  try {
    body = ctx.client.parse(
      rawBulkCreated,
      await sendCreates(
        ctx,
        sent.map((s) => s.plan.write),
      ),
      {
        operation: BULK_OPERATION,
      },
    );
  } catch (error) {
    for (const s of sent) results[s.index] = asError(error);
    return results;
  }
  const sentResults: Result[] = new Array<Result>(sent.length);
  const created = splitBulkAnswer(
    body,
    sent.map((s) => s.plan.draft),
    sentResults,
  );
  const { sprintField } = await ctx.site();
  if (body.errors.some((e) => e.elementErrors?.errors?.[sprintField] !== undefined))
    ctx.sprints.promise = undefined; // a cached sprint was refused (closed or gone): list again
  for (const c of created) if (c.draft.marker) ctx.created.set(markerKey(c.draft.marker), c.key);
  const followUps = created.map((c): FollowUp => {
    const plan = sent[c.index]?.plan;
    const issueType = issueTypeOf(ctx, c.draft);
    const step = plan?.step;
    const moved = step !== undefined && transitionMade(c.transition);
    return {
      ...c,
      status: step === undefined ? ctx.initialStatus.get(issueType) : moved ? step.to : undefined,
      initial: step === undefined,
    };
  });
  await finishCreated(ctx, followUps, sentResults, signal, walked);
  sent.forEach((s, i) => {
    results[s.index] = sentResults[i] ?? new InternalError("Jira create answered nothing.");
  });
  return results;
}
/** Maps a bulk answer onto the drafts: errors by `failedElementNumber`, successes in order. */
function splitBulkAnswer(
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
    created.push({
      index,
      key: issue.key,
      id: Number(issue.id),
      draft,
      ...(issue.transition && { transition: issue.transition }),
    });
  });
  return created;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new InternalError(String(error));
}

/** Whether the create's transition was made (Jira answers its status; 204 when made). */
function transitionMade(answer: RawCreated["transition"]): boolean {
  return answer?.status !== undefined && answer.status >= 200 && answer.status < 300;
}

/**
 * The follow-ups of created issues: the transitions the create did not make (from the status
 * known after the create, else read back once), then one read-back of the final state.
 */
async function finishCreated(
  ctx: JiraContext,
  items: readonly FollowUp[],
  results: Result[],
  signal?: AbortSignal,
  walked?: () => void,
): Promise<void> {
  const failed = new Map<string, Error>();
  const unknown = items.filter((c) => c.status === undefined);
  const reading =
    unknown.length > 0
      ? readByKeys(
          ctx,
          unknown.map((c) => c.key),
          unknown.map((c) => c.id),
        )
      : Promise.resolve(new Map<string, WorkItem>());
  // The site's statuses, which a walk checks first, come with the read-back (once per tracker).
  if (items.some((c) => c.status !== c.draft.status)) knownStatuses(ctx).catch(() => undefined);
  // A probe's first transitions are listed while its status is read back (one round trip).
  const probes = new Map<string, FollowUp>();
  for (const c of unknown) {
    const type = issueTypeOf(ctx, c.draft);
    if (c.initial && !ctx.initialStatus.has(type) && !probes.has(type)) probes.set(type, c);
  }
  const learning = [...probes].map(([type, c]) =>
    learnWhileReading(
      ctx,
      c.key,
      type,
      reading.then((read) => read.get(c.key)?.status),
    ),
  );
  const before = await reading;
  await Promise.all(learning);
  for (const c of unknown) {
    const read = before.get(c.key);
    if (c.initial && read) ctx.initialStatus.set(issueTypeOf(ctx, c.draft), read.status);
  }
  const unchanged = new Set<string>();
  /** Transitions listed out of the statuses the walks reached, while the issues are read back. */
  const listings: Promise<unknown>[] = [];
  await eachAtOnce(items, async (c) => {
    const status = c.status ?? before.get(c.key)?.status;
    const issueType = issueTypeOf(ctx, c.draft);
    try {
      const steps =
        status === c.draft.status
          ? 0
          : await transitionTo(ctx, c.key, c.draft.status, {
              signal,
              current: status === undefined ? undefined : { status, issueType },
              learning: (listing) => listings.push(listing),
            });
      if (steps === 0) unchanged.add(c.key);
    } catch (error) {
      failed.set(c.key, asError(error));
    }
  });
  // What the walks learnt of the workflow is known once the listings out of the statuses they
  // reached are in: the caller's next creates may go then, while these are read back.
  const listed = Promise.allSettled(listings);
  void listed.then(() => walked?.());
  const reuse = (c: FollowUp) => unchanged.has(c.key) && before.has(c.key);
  const reread = items.filter((c) => !failed.has(c.key) && !reuse(c));
  const after =
    reread.length > 0
      ? await readByKeys(
          ctx,
          reread.map((c) => c.key),
          reread.map((c) => c.id),
        )
      : new Map<string, WorkItem>();
  await listed;
  await eachAtOnce(items, async (c) => {
    const error = failed.get(c.key);
    if (error) {
      results[c.index] = error;
      return;
    }
    // Search may not see the issue yet (no id to reconcile): then read it directly.
    const item = reuse(c)
      ? before.get(c.key)
      : (after.get(c.key) ??
        (await getItem(ctx, { kind: c.draft.kind, id: c.key }).catch(asError)));
    results[c.index] =
      item ?? new InternalError(`Jira issue ${c.key} was created but could not be read back.`);
  });
}

/**
 * Runs `fn` over every item at once: how many requests are in flight is the request gate's
 * concern (its `concurrency`), not the adapter's.
 */
async function eachAtOnce<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  await Promise.all(items.map(fn));
}

/**
 * Creates that this tracker started and did not finish (sprint move or transition failed), by
 * marker key. A retry of the create, or a recovery by marker, runs the follow-ups on the issue
 * that exists instead of creating a second one or returning it half done.
 */
export function createUnfinished(ctx: JiraContext) {
  const started = new Map<string, WorkItemDraft>();
  // The create is atomic (fields, sprint, its transition): what may be missing are the later
  // transitions, made from the status the issue has now.
  const finish = async (
    key: string,
    draft: WorkItemDraft,
    status: string | undefined,
    signal?: AbortSignal,
  ) => {
    const results: Result[] = [];
    const item: FollowUp = { index: 0, key, id: Number.NaN, draft, status, initial: false };
    await finishCreated(ctx, [item], results, signal);
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
      if (key !== undefined) return settle(mk, await finish(key, draft, undefined, signal));
      const [result] = await createItems(ctx, [draft], signal);
      return settle(mk, result);
    },
    /** Like `create` for many drafts: one result per draft, errors in place. */
    async createMany(drafts: readonly WorkItemDraft[], signal?: AbortSignal): Promise<Result[]> {
      const results: Result[] = new Array<Result>(drafts.length);
      const fresh: number[] = [];
      const freshDrafts: WorkItemDraft[] = [];
      for (const [index, draft] of drafts.entries()) {
        if (draft.marker === undefined) {
          fresh.push(index);
          freshDrafts.push(draft);
          continue;
        }
        const mk = markerKey(draft.marker);
        started.set(mk, draft);
        const key = ctx.created.get(mk);
        if (key === undefined) {
          fresh.push(index);
          freshDrafts.push(draft);
        } else {
          const result = await finish(key, draft, undefined, signal).catch(asError);
          results[index] = result ?? new InternalError("Jira create answered nothing.");
        }
      }
      const created = await createItems(ctx, freshDrafts, signal);
      fresh.forEach((index, i) => {
        results[index] = created[i] ?? new InternalError("Jira create answered nothing.");
      });
      for (const [index, draft] of drafts.entries()) {
        if (draft.marker !== undefined && !(results[index] instanceof Error))
          started.delete(markerKey(draft.marker));
      }
      return results;
    },
    /** Finishes a found issue when this tracker's create of it did not finish. */
    async found(item: WorkItem, mk: string, signal?: AbortSignal): Promise<WorkItem> {
      const draft = started.get(mk);
      if (draft === undefined) return item;
      if (item.status === draft.status) return settle(mk, item);
      return settle(mk, await finish(item.id, draft, item.status, signal));
    },
  };
}
