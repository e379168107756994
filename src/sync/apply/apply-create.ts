import { NotFoundError } from "../../core/errors.js";
import type { CommentDraft, TimeEntryDraft, WorkItem, WorkItemDraft } from "../../core/model.js";
import type { LinkIdentity } from "../../state/identity-table.js";
import type { IntentDraft } from "../../state/records.js";
import type { EngineContext } from "../context.js";
import { baseOf, linkRecord } from "../plan/links.js";
import { markBorn } from "./born-marker.js";
import { ensure } from "./ensure.js";
import { rememberStory, storyCreatedInRun } from "./created-stories.js";
import { expectedMarker, learnFromCreate } from "./create-marker.js";
import { foundCopyBases } from "./found-copy.js";
import { refreshTargetDigests } from "./marker-refresh.js";
import { ensureTargetParent } from "./parent.js";
import { anchorOf } from "./tinypm-anchor.js";
import type { CreateAction } from "../plan/plan-types.js";
import {
  commentKey,
  sameJson,
  type Snapshot,
  targetSnapshot,
  tinypmSnapshot,
} from "../plan/snapshot.js";
import { hexHash } from "../../core/short-hash.js";

/**
 * Creates an item on the other side, crash-safely: the intent is recorded before the call, the
 * create is an ensure, found again by marker (targets) or by content (tinyPM) after an ambiguous
 * failure and sent again only when it is not there (`ensure.ts`), and
 * the link replaces the intent in one transaction. Comments and time entries follow; the link's
 * base lists only what was copied, so an interrupted copy resumes where it stopped.
 */
export async function applyCreate(
  ctx: EngineContext,
  action: CreateAction,
): Promise<WorkItem | ClaimedImport> {
  const p = await prepareCreate(ctx, action);
  return "claimedBy" in p ? p : createOne(ctx, p, false);
}

/** An import left to another job sharing the target: it claimed the item first. */
export interface ClaimedImport {
  readonly claimedBy: string;
}

/** A create whose draft is built and whose intent is recorded, not yet sent. */
export interface PreparedCreate {
  readonly action: CreateAction;
  readonly draft: WorkItemDraft;
  readonly intentId: number;
}

/** A create whose draft is built, its intent not yet recorded. */
export interface DraftedCreate {
  readonly action: CreateAction;
  readonly draft: WorkItemDraft;
  readonly intent: IntentDraft;
}

/**
 * Builds the draft (with its parent on the other side) and records the intent. The import of a
 * target item without a marker claims the item in the same transaction: when another job sharing
 * the target claimed it first, nothing is recorded and that job is named instead.
 */
export async function prepareCreate(
  ctx: EngineContext,
  action: CreateAction,
): Promise<PreparedCreate | ClaimedImport> {
  const { draft, intent } = await draftCreate(ctx, action);
  // An item with a marker is another job's on purpose (`importFrom`): no claim stands in its way.
  if (action.toSide === "target" || action.source.marker !== undefined)
    return { action, draft, intentId: await ctx.state.recordIntent(intent) };
  const claim = await ctx.state.claimImport(intent, ctx.targetLocation);
  if (claim.claimedBy !== undefined) return { claimedBy: claim.claimedBy };
  return { action, draft, intentId: claim.intentId };
}

/** Builds the draft of a create (with its parent on the other side) and its intent. */
export async function draftCreate(
  ctx: EngineContext,
  action: CreateAction,
): Promise<DraftedCreate> {
  const toTarget = action.toSide === "target";
  const parentId = action.kind === "task" ? await parentOnOtherSide(ctx, action) : undefined;
  // Made from the source each time it is read (lazy-create.ts): read once.
  const planned = action.draft;
  const sent: WorkItemDraft = {
    ...planned,
    parentId,
    ...(toTarget ? {} : { iteration: tinypmIteration(ctx, planned) }),
  };
  // The block a target create writes already says which values the target will hold its way.
  const draft = toTarget ? { ...sent, marker: await expectedMarker(ctx, sent) } : sent;
  const intent: IntentDraft = {
    job: ctx.job.name,
    kind: action.kind,
    originSystem: toTarget ? "tinypm" : ctx.targetSystem,
    originId: action.source.id,
    targetSystem: toTarget ? ctx.targetSystem : "tinypm",
    payloadHash: hashDraft(draft),
    // tinyPM holds no marker: what tells its copy apart after a crash (tinypm-anchor.ts).
    ...(toTarget ? {} : { anchor: anchorOf(draft, ctx.tinypmFloors?.get(action.kind)) }),
  };
  return { action, draft, intent };
}

/**
 * Makes one prepared create as an ensure (found again by marker or content after an ambiguous
 * failure, created again only when it is not there), then finishes it. `lookFirst`: an earlier
 * attempt may have created it already (a bulk create that failed for this item), so look before
 * creating.
 */
export async function createOne(
  ctx: EngineContext,
  p: PreparedCreate,
  lookFirst: boolean,
): Promise<WorkItem> {
  const { action, draft } = p;
  const toTarget = action.toSide === "target";
  const tracker = toTarget ? ctx.target : ctx.tinypm;
  const { value: made, found } = await ensure(ctx, action.toSide, {
    name: `create ${action.kind} "${action.title}"`,
    create: () => tracker.create(draft),
    find: () =>
      toTarget && draft.marker
        ? ctx.target.findByMarker(draft.marker)
        : findCreatedInTinypm(ctx, draft),
    lookFirst,
  });
  return finishCreate(ctx, p, made, found);
}

/**
 * What the run's later creates need of a create's answer, noted the moment it arrives (before the
 * item's own follow-ups): a story's id on the other side, for its tasks' drafts, and what the
 * target held of each value sent, for the next drafts' markers (`expectedMarker`).
 */
export function noteAnswered(
  ctx: EngineContext,
  p: PreparedCreate,
  made: WorkItem,
  recovered: boolean,
): void {
  const { action, draft } = p;
  if (action.kind === "story") rememberStory(ctx, action.toSide, action.source.id, made.id);
  if (action.toSide === "target" && draft.marker !== undefined && !recovered)
    learnFromCreate(ctx, action.kind, draft.marker, targetSnapshot(ctx.mapping, made));
}

/** Links a made item (the intent becomes the link), copies its extras and stores the base. */
export async function finishCreate(
  ctx: EngineContext,
  p: PreparedCreate,
  made: WorkItem,
  recovered: boolean,
): Promise<WorkItem> {
  const { action, intentId } = p;
  const toTarget = action.toSide === "target";
  // A create recovered by its marker may have stopped before the task was hung under its story.
  const created = toTarget
    ? await ensureTargetParent(ctx, made, action.source, p.draft.parentId)
    : made;
  const tinypmItem = toTarget ? action.source : created;
  const targetItem = toTarget ? created : action.source;
  const copied = (s: Snapshot): Snapshot => ({ ...s, comments: [], timeEntries: {} });
  // A target copy found again by its marker may have been edited by a person since the create,
  // or cut short: its marker's digests tell (found-copy.ts); both sides' base fields follow them.
  const copy =
    toTarget && recovered ? foundCopyBases(ctx.mapping, tinypmItem, targetItem) : undefined;
  const agreed = (s: Snapshot, side: "tinypm" | "target"): Snapshot =>
    copy === undefined ? s : { ...s, fields: copy[side].fields };
  const link = linkRecord({
    job: ctx.job.name,
    kind: action.kind,
    tinypmId: tinypmItem.id,
    targetSystem: ctx.targetSystem,
    targetId: targetItem.id,
    origin: toTarget ? "tinypm" : ctx.targetSystem,
    parentTinypmId: tinypmItem.parentId,
    baseTinypm: copied(agreed(tinypmSnapshot(ctx.mapping, tinypmItem), "tinypm")),
    baseTarget: copied(agreed(targetSnapshot(ctx.mapping, targetItem), "target")),
    now: ctx.now(),
  });
  // A target create wrote the draft's marker block: its copy is stored with the link, at once.
  // An import's target item gets its marker before the link, stored with it: a stop or a failed
  // write in between leaves the intent, which the next run settles (reconcile.ts) — never a link
  // whose target item says nothing of its tinyPM copy, which no later quiet run would read again.
  const born = toTarget ? undefined : await markBorn(ctx, action.source, created);
  const marker = toTarget ? p.draft.marker : undefined;
  const identity = marker === undefined ? born?.identity : { marker, meta: p.draft.metadata ?? {} };
  // A target create's confirmation joins the run's group commit, once, with its final base: the
  // intent is durable and the item carries its marker, so a crash before the group commits only
  // leaves the intent for the next run to settle by marker.
  const group = toTarget ? ctx.confirms : undefined;
  if (group === undefined) await ctx.state.confirmIntent(intentId, link, identity);
  noteAnswered(ctx, p, created, recovered);
  ctx.emit({
    type: "created",
    kind: action.kind,
    side: action.toSide,
    title: action.title,
    id: created.id,
    sourceId: action.source.id,
    ...(created.url !== undefined && { url: created.url }),
  });
  try {
    await copyExtras(ctx, action, created);
  } catch (error) {
    // The link as it stands (its base lists no comment or time entry: they follow next run).
    await group?.add({ intentId, link, identity, action });
    throw error;
  }
  // The block as the target holds it now (rewritten when the create's answer told otherwise).
  let held = identity;
  const targetNow = toTarget
    ? await remember(ctx, p, created, recovered, (rewritten) => {
        held = rewritten;
        return group === undefined
          ? ctx.state.putLinkIdentity(ctx.job.name, action.kind, action.source.id, rewritten)
          : Promise.resolve();
      })
    : (born?.item ?? targetItem);
  // A tinyPM create found again after an ambiguous failure may be incomplete: the origin's
  // fields the copy lacks get an empty base, so they flow on the next run. Fields the copy holds
  // keep their base: a later edit of one on the other side is no conflict.
  const origin = (s: Snapshot, copy: Snapshot): Snapshot =>
    recovered
      ? {
          ...s,
          fields: Object.fromEntries(
            Object.entries(s.fields).filter(([k, v]) => sameJson(v, copy.fields[k])),
          ),
        }
      : s;
  const t = tinypmSnapshot(ctx.mapping, tinypmItem);
  const g = targetSnapshot(ctx.mapping, withExtras(targetNow, action, toTarget, ctx));
  const base = toTarget
    ? baseOf(agreed(t, "tinypm"), agreed(g, "target"))
    : baseOf(t, origin(g, t));
  if (group !== undefined) {
    const updatedAt = ctx.now().toISOString();
    await group.add({ intentId, link: { ...link, base, updatedAt }, identity: held, action });
  } else await ctx.state.updateBase(ctx.job.name, action.kind, tinypmItem.id, base);
  return created;
}

/**
 * Checks the block a target create wrote against the target's answer: the block said which
 * values the target would hold its own way (`expectedMarker`); when the answer holds another
 * one (a default the create metadata did not tell, a normalisation not seen before in the run),
 * the block is written once more to say so — counted as a `marker_rewritten` event — and the
 * state's copy follows. The run's later creates expect what this one answered. Not for a create
 * found again after an ambiguous failure: the copy may be incomplete, and its missing fields
 * flow on the next run.
 */
async function remember(
  ctx: EngineContext,
  p: PreparedCreate,
  created: WorkItem,
  recovered: boolean,
  /** Stores the rewritten block (at once, or with the create's grouped confirmation). */
  store: (identity: LinkIdentity) => Promise<void>,
): Promise<WorkItem> {
  const sent = p.draft.marker;
  if (sent === undefined || recovered) return created;
  const held = targetSnapshot(ctx.mapping, created);
  const wrong = learnFromCreate(ctx, p.action.kind, sent, held);
  if (wrong.length === 0) return created;
  const meta = p.draft.metadata ?? {};
  const marker = await refreshTargetDigests(ctx, {
    kind: p.action.kind,
    item: created,
    marker: sent,
    metadata: meta,
    held,
  });
  if (marker === sent) return created;
  ctx.emit({ type: "marker_rewritten", kind: p.action.kind, id: created.id, fields: wrong });
  await store({ marker, meta });
  return created;
}

/** Adds the comments and native time entries after the item itself. */
async function copyExtras(
  ctx: EngineContext,
  action: CreateAction,
  created: WorkItem,
): Promise<void> {
  const ref = { kind: action.kind, id: created.id };
  for (const comment of action.comments) await addComment(ctx, action.toSide, ref, comment);
  const added: TimeEntryDraft[] = [];
  for (const entry of action.timeEntries) {
    await addTimeEntry(ctx, action.toSide, ref, entry, added);
    added.push(entry);
  }
}

export async function addComment(
  ctx: EngineContext,
  side: "tinypm" | "target",
  ref: { kind: WorkItem["kind"]; id: string },
  comment: CommentDraft,
): Promise<void> {
  const tracker = side === "target" ? ctx.target : ctx.tinypm;
  await ensure(ctx, side, {
    name: `comment on ${ref.kind} ${ref.id}`,
    create: () => tracker.addComment(ref, comment),
    find: async () => {
      const item = await tracker.get(ref);
      const key = commentKey(comment);
      return item?.comments.find((c) => commentKey(c) === key || c.body.includes(comment.body));
    },
  });
}

/**
 * Adds one time entry. `before`: the entries the item had before this call, as far as the run
 * knows (what it read plus what it added), so that after an ambiguous failure the entry counts as
 * made only when the item now has one more like it. Entries are compared by date and hours alone:
 * a Jira worklog's author is always the API user, whoever the entry is for.
 */
export async function addTimeEntry(
  ctx: EngineContext,
  side: "tinypm" | "target",
  ref: { kind: WorkItem["kind"]; id: string },
  entry: TimeEntryDraft,
  before: readonly Pick<TimeEntryDraft, "date" | "hours">[],
): Promise<void> {
  const tracker = side === "target" ? ctx.target : ctx.tinypm;
  const like = (e: Pick<TimeEntryDraft, "date" | "hours">): boolean =>
    e.date === entry.date && Math.abs(e.hours - entry.hours) < 1 / 3600;
  await ensure(ctx, side, {
    name: `time entry on ${ref.kind} ${ref.id}`,
    create: () => tracker.addTimeEntry(ref, entry),
    find: async () => {
      const item = await tracker.get(ref);
      const now = item?.timeEntries.filter(like) ?? [];
      return now.length > before.filter(like).length ? now.at(-1) : undefined;
    },
  });
}

/** The target item as it is once its comments and time entries were copied (for the base). */
function withExtras(
  targetItem: WorkItem,
  action: CreateAction,
  toTarget: boolean,
  ctx: EngineContext,
): WorkItem {
  if (!toTarget) return targetItem;
  const comments = action.comments.map((c, i) => ({
    id: `new-${i}`,
    author: c.author,
    createdAt: c.createdAt,
    body: c.body,
  }));
  const nativeTime = ctx.mapping.timeEntriesToTarget(action.source);
  return {
    ...targetItem,
    comments: [...targetItem.comments, ...comments],
    timeEntries:
      nativeTime.length > 0 ? [...targetItem.timeEntries, ...nativeTime] : targetItem.timeEntries,
  };
}

async function parentOnOtherSide(ctx: EngineContext, action: CreateAction): Promise<string> {
  const pid = action.parentSourceId;
  const known = pid === undefined ? undefined : storyCreatedInRun(ctx, action.toSide, pid);
  if (known !== undefined) return known;
  const link =
    pid === undefined
      ? undefined
      : action.toSide === "target"
        ? await ctx.state.getLinkByTinypm(ctx.job.name, "story", pid)
        : await ctx.state.getLinkByTarget(ctx.job.name, "story", pid);
  const id = action.toSide === "target" ? link?.targetId : link?.tinypmId;
  if (id === undefined) {
    throw new NotFoundError(
      `The story of task "${action.title}" has not been copied yet, so the task cannot be created.`,
      {
        system: action.toSide === "target" ? ctx.targetSystem : "tinypm",
        operation: "create task",
        id: action.source.id,
      },
      { hint: "Fix the story's failure (see `tinypm-sync status`) and run again." },
    );
  }
  return id;
}

function tinypmIteration(ctx: EngineContext, draft: WorkItemDraft): WorkItemDraft["iteration"] {
  if (draft.iteration === undefined) return undefined;
  const found = ctx.tinypmIterations.get(draft.iteration.name);
  return found === undefined ? undefined : { id: found.id, name: found.name };
}

/** After an ambiguous tinyPM create: an unlinked item of the same kind, parent and title. */
async function findCreatedInTinypm(
  ctx: EngineContext,
  draft: WorkItemDraft,
): Promise<WorkItem | undefined> {
  for await (const item of ctx.tinypm.list({ kind: draft.kind, parentId: draft.parentId })) {
    if (item.title !== draft.title) continue;
    if ((await ctx.state.getLinkByTinypm(ctx.job.name, item.kind, item.id)) === undefined)
      return item;
  }
  return undefined;
}

export function hashDraft(draft: WorkItemDraft): string {
  return hexHash("sha256", JSON.stringify({ ...draft, metadata: undefined }), 16);
}
