import type { TimeEntryDraft, WorkItem, WorkItemFieldName } from "../../core/model.js";
import { addComment, addTimeEntry } from "./apply-create.js";
import type { EngineContext } from "../context.js";
import { rewrite } from "./ensure.js";
import { answeredOver } from "./answered.js";
import { recordPendingWrites } from "./pending.js";
import { baseOf } from "../plan/links.js";
import { keepTargetTime } from "./kept-on-target.js";
import { refreshAfterUpdate } from "./marker-refresh.js";
import { hasWrites, type DeleteAction, type UpdateAction } from "../plan/plan-types.js";
import type { Snapshot } from "../plan/snapshot.js";
import { targetSnapshot, tinypmSnapshot } from "../plan/snapshot.js";

/**
 * Applies an update to one linked pair: tinyPM first (a safe full-document write that refuses
 * if tinyPM changed since it was read), then the target, then comments and time entries; then
 * the base moves to what both sides now hold (clearing the pending writes recorded before the
 * first write, in the same statement) — except fields in a parked conflict, whose base
 * stays so that the conflict stays visible until resolved, and a description parked in units,
 * whose tinyPM base is what the target now holds (the units written are agreed, the parked ones
 * still differ from tinyPM, so the conflict stays until resolved).
 */
export async function applyUpdate(ctx: EngineContext, a: UpdateAction): Promise<void> {
  const job = ctx.job.name;
  const tinypmRef = { kind: a.kind, id: a.link.tinypmId };
  const targetRef = { kind: a.kind, id: a.link.targetId };
  let tinypmAfter: WorkItem = a.tinypmItem;
  let targetAfter: WorkItem = a.targetItem;
  // Written before the first field write, cleared with the base update below.
  await recordPendingWrites(ctx, a);
  if (Object.keys(a.tinypmSet).length > 0) {
    tinypmAfter = await rewrite(ctx, "tinypm", {
      name: `update ${a.kind} ${a.link.tinypmId}`,
      run: () => ctx.tinypm.update(tinypmRef, { set: a.tinypmSet, base: a.tinypmItem }),
    });
  }
  if (
    Object.keys(a.targetSet).length > 0 ||
    a.targetMetadata !== undefined ||
    a.targetMarker !== undefined
  ) {
    targetAfter = await rewrite(ctx, "target", {
      name: `update ${a.kind} ${a.link.targetId}`,
      run: () =>
        ctx.target.update(targetRef, {
          set: a.targetSet,
          richDescription: a.targetRichDescription,
          metadata: a.targetMetadata,
          marker: a.targetMarker,
          base: a.targetItem,
        }),
    });
    await rememberIdentity(ctx, a, targetAfter);
  }
  for (const c of a.commentsToTarget) await addComment(ctx, "target", targetRef, c);
  for (const c of a.commentsToTinypm) await addComment(ctx, "tinypm", tinypmRef, c);
  const targetTime: TimeEntryDraft[] = [...a.targetItem.timeEntries];
  for (const e of a.timeToTarget) {
    await addTimeEntry(ctx, "target", targetRef, e, targetTime);
    targetTime.push(e);
  }
  const tinypmTime: TimeEntryDraft[] = [...a.tinypmItem.timeEntries];
  for (const e of a.timeToTinypm) {
    await addTimeEntry(ctx, "tinypm", tinypmRef, e, tinypmTime);
    tinypmTime.push(e);
  }

  const tinypmItem: WorkItem = {
    ...answeredOver(a.tinypmItem, tinypmAfter, new Set(Object.keys(a.tinypmSet))),
    comments: [...a.tinypmItem.comments, ...a.commentsToTinypm.map((c) => ({ ...c }))],
    timeEntries: [...a.tinypmItem.timeEntries, ...a.timeToTinypm],
  };
  const targetItem: WorkItem = {
    ...answeredOver(a.targetItem, targetAfter, targetWrote(a)),
    comments: [...a.targetItem.comments, ...a.commentsToTarget.map((c) => ({ ...c }))],
    timeEntries: [...a.targetItem.timeEntries, ...a.timeToTarget],
  };
  const parkedAll = a.conflicts.filter((c) => c.resolution === "parked");
  // Fields kept on the target by a one-way `migrate` keep their base like parked ones.
  const parked = [
    ...parkedAll.filter((c) => c.units === undefined).map((c) => c.field),
    ...(a.keptOnTarget ?? []),
  ];
  const inUnits = parkedAll.filter((c) => c.units !== undefined).map((c) => c.field);
  const g = keepTargetTime(
    keepBase(targetSnapshot(ctx.mapping, targetItem), a.link.baseTarget, parked),
    a.link.baseTarget,
    a.timeKeptOnTarget ?? [],
  );
  // A description written but for its parked units: tinyPM's base is what the target now holds,
  // so the next sync neither sends the written units again nor forgets the parked ones.
  const t = writtenBase(
    keepBase(tinypmSnapshot(ctx.mapping, tinypmItem), a.link.baseTinypm, parked),
    g,
    inUnits,
  );
  // What the target answered for the written fields may not be what was sent (a default, a
  // normalisation): the marker then says so (a description written in units is left as is).
  if (targetAfter !== a.targetItem && inUnits.length === 0)
    await refreshAfterUpdate(ctx, a, targetAfter, g);
  await ctx.state.updateBase(job, a.kind, a.link.tinypmId, baseOf(t, g));
  await recordConflicts(ctx, a);
  if (hasWrites(a)) {
    ctx.emit({
      type: "updated",
      kind: a.kind,
      title: a.title,
      tinypmId: a.link.tinypmId,
      targetId: a.link.targetId,
      changes: a.changes,
    });
  }
  if (parkedAll.length > 0) {
    ctx.emit({
      type: "conflict",
      kind: a.kind,
      title: a.title,
      tinypmId: a.link.tinypmId,
      targetId: a.link.targetId,
      conflicts: a.conflicts,
    });
  }
}

/** What an update wrote on the target: its fields, the hidden block and the marker. */
function targetWrote(a: UpdateAction): Set<string> {
  const wrote = new Set<string>(Object.keys(a.targetSet));
  if (wrote.has("description")) wrote.add("richDescription");
  if (a.targetMetadata !== undefined) wrote.add("metadata");
  if (a.targetMarker !== undefined) wrote.add("marker");
  return wrote;
}

/** Keeps a copy of the block the target item now holds (the state stands in if it is lost). */
async function rememberIdentity(
  ctx: EngineContext,
  a: UpdateAction,
  after: WorkItem,
): Promise<void> {
  const marker = after.marker ?? a.targetMarker ?? a.targetItem.marker;
  if (marker === undefined) return;
  const meta =
    after.marker === undefined ? (a.targetMetadata ?? a.targetItem.metadata) : after.metadata;
  await ctx.state.putLinkIdentity(ctx.job.name, a.kind, a.link.tinypmId, { marker, meta });
}

function writtenBase(
  now: Snapshot,
  target: Snapshot,
  fields: readonly WorkItemFieldName[],
): Snapshot {
  if (fields.length === 0) return now;
  const out: Record<string, unknown> = { ...now.fields };
  for (const f of fields) out[f] = target.fields[f];
  return { ...now, fields: out as Snapshot["fields"] };
}

function keepBase(now: Snapshot, base: Snapshot, fields: readonly WorkItemFieldName[]): Snapshot {
  if (fields.length === 0) return now;
  const kept = Object.entries(now.fields).filter(([k]) => !fields.includes(k as WorkItemFieldName));
  const restored = fields.flatMap((f) =>
    base.fields[f] === undefined ? [] : [[f, base.fields[f]] as const],
  );
  return { ...now, fields: Object.fromEntries([...kept, ...restored]) };
}

/**
 * Parks manual conflicts in the state; marks applied the ones a resolution decided; closes the
 * open ones this update no longer parks (the sides agree now, or one side's change was given up).
 */
async function recordConflicts(ctx: EngineContext, a: UpdateAction): Promise<void> {
  const job = ctx.job.name;
  const open = (await ctx.state.conflicts({ job })).filter(
    (c) => c.kind === a.kind && c.tinypmId === a.link.tinypmId,
  );
  const parked = new Set<string>(
    a.conflicts.flatMap((c) => (c.resolution === "parked" ? [c.field] : [])),
  );
  for (const r of open)
    if (r.status === "open" && !parked.has(r.field)) await ctx.state.settleConflict(r.id);
  for (const c of a.conflicts) {
    if (c.resolution === "parked") {
      await ctx.state.openConflict({
        job,
        kind: a.kind,
        tinypmId: a.link.tinypmId,
        targetId: a.link.targetId,
        field: c.field,
        baseValue: c.base ?? null,
        tinypmValue: c.tinypm ?? null,
        targetValue: c.target ?? null,
      });
    } else if (a.keptOnTarget?.includes(c.field) !== true) {
      // (A decision for the target that a one-way run kept there is applied by a later sync.)
      for (const r of open)
        if (r.field === c.field && r.status === "resolved")
          await ctx.state.markConflictApplied(r.id);
    }
  }
}

/** Mirrors a deletion on the other side per `onDelete`, and remembers it in the link. */
export async function applyDelete(ctx: EngineContext, a: DeleteAction): Promise<void> {
  const onTarget = a.side === "target";
  const tracker = onTarget ? ctx.target : ctx.tinypm;
  const ref = { kind: a.kind, id: onTarget ? a.link.targetId : a.link.tinypmId };
  if (a.mode === "delete") {
    await rewrite(ctx, a.side, {
      name: `delete ${a.kind} ${ref.id}`,
      run: () => tracker.delete(ref),
    });
  } else if (a.mode === "close" && a.set !== undefined) {
    const set = a.set;
    await rewrite(ctx, a.side, {
      name: `close ${a.kind} ${ref.id}`,
      run: () => tracker.update(ref, { set }),
    });
    // Why it was closed, for people reading the issue; once: the link is marked deleted below,
    // and a rerun after a crash before that finds the comment on the issue (see plan-delete).
    if (a.comment !== undefined)
      await addComment(ctx, a.side, ref, {
        author: { name: "tinypm-sync" },
        createdAt: ctx.now().toISOString(),
        body: a.comment,
      });
  }
  // The side found gone is marked so; a deletion mirrored as a delete leaves the other side
  // gone too (a closed copy is still there), so that no later run counts it deleted again.
  const gone = (s: Snapshot): Snapshot => ({ ...s, deleted: true });
  const both = a.mode === "delete";
  const t = onTarget || both ? gone(a.link.baseTinypm) : a.link.baseTinypm;
  const g = !onTarget || both ? gone(a.link.baseTarget) : a.link.baseTarget;
  await ctx.state.updateBase(ctx.job.name, a.kind, a.link.tinypmId, baseOf(t, g));
  // A conflict open on the item no longer holds once either side is gone.
  for (const r of await ctx.state.conflicts({ job: ctx.job.name, status: "open" }))
    if (r.kind === a.kind && r.tinypmId === a.link.tinypmId) await ctx.state.settleConflict(r.id);
  ctx.emit({ type: "deleted", kind: a.kind, title: a.title, side: a.side, mode: a.mode });
}
