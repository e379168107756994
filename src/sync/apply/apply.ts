import { SyncError } from "../../core/errors.js";
import type { WorkItem } from "../../core/model.js";
import { applyCreate } from "./apply-create.js";
import { applyCreateRun, createRun, type CreateRunHooks, RunsInFlight } from "./create-run.js";
import { applyDelete, applyUpdate } from "./apply-update.js";
import { confirmGroup } from "./confirm-group.js";
import type { EngineContext } from "../context.js";
import type { EngineOptions } from "../run-options.js";
import type { RunSummary } from "../events.js";
import { eachConcurrently } from "./concurrent.js";
import { isFatal } from "./fatal.js";
import { linkRecord } from "../plan/links.js";
import type { CreateAction, Plan, PlanAction, SkipAction } from "../plan/plan-types.js";
import { actionIds, actionKey, count, plannedOutcome } from "../outcome.js";
import { EMPTY_SNAPSHOT, type Snapshot, targetSnapshot } from "../plan/snapshot.js";

/**
 * Applies a plan, action by action. A failing item is parked in the state with its error and the
 * run goes on; an error that no later item can escape (auth, permission, remote down after the
 * queue's retries) stops the run and is rethrown.
 *
 * With `release`, the apply step takes the plan's actions over: each one's slot is emptied once
 * it is done (sent, for a run of creates), so that the items it carried (a migration's every
 * tinyPM item, with its text) go as they are written instead of at the end of the run. The
 * caller reads the plan's actions no more.
 */
export async function applyPlan(
  ctx: EngineContext,
  plan: Plan,
  summary: RunSummary,
  group: EngineOptions["confirmGroup"] = {},
  { release = false }: { release?: boolean } = {},
): Promise<void> {
  // The items parked before this point (by earlier runs, or by this run's identity step): an
  // applied action clears its item's failure only when there is one, without a call per item.
  const { parked, unreadable } = await parkedItems(ctx);
  // Creates the state refused to confirm (see confirm-group.ts): reported failed, never cleared.
  const refused = new Set<string>();
  const confirms = confirmGroup(ctx.state, {
    size: group.size,
    maxWaitMs: group.maxWaitMs,
    onRefused: async (c, error) => {
      refused.add(actionKey(c.action));
      summary.created--;
      summary.failed++;
      await park(ctx, c.action, error, parked);
    },
  });
  const grouped: EngineContext = { ...ctx, confirms };
  try {
    await applyActions(grouped, plan, summary, { parked, refused, unreadable, release });
  } catch (error) {
    // What was confirmed before the error is recorded; should the state be gone, the intents of
    // those creates stay and the next run links each created item by its marker.
    await confirms.flush().catch(() => undefined);
    throw error;
  }
  await confirms.flush();
}

async function applyActions(
  ctx: EngineContext,
  plan: Plan,
  summary: RunSummary,
  {
    parked,
    refused,
    unreadable,
    release,
  }: {
    parked: Set<string>;
    refused: ReadonlySet<string>;
    unreadable: ReadonlySet<string>;
    release: boolean;
  },
): Promise<void> {
  const skipped = (a: SkipAction): Promise<void> => settleSkip(ctx, summary, a, parked, unreadable);
  const total = plan.actions.filter((a) => a.type !== "skip").length;
  let done = 0;
  // The total first, so that the first phase shown (`creating stories`) already says `0/N items`.
  if (total > 0) ctx.emit({ type: "progress", phase: "apply", done, total });
  let phase = "";
  const enter = (action: PlanAction): void => {
    const next = phaseOf(action);
    if (next === phase) return;
    phase = next;
    ctx.emit({ type: "phase", phase });
  };
  const actions = plan.actions;
  // The plan's own array, its slots emptied behind the loop (`release` above): the loop reads
  // only from `i` on.
  const letGo = (from: number, count: number): void => {
    if (!release) return;
    const slots = actions as (PlanAction | undefined)[];
    for (let k = from; k < from + count; k++) slots[k] = undefined;
  };
  const sent = new RunsInFlight();
  try {
    for (let i = 0; i < actions.length;) {
      const action = actions[i];
      if (action === undefined) break;
      if (action.type === "skip") {
        await skipped(action);
        letGo(i, 1);
        i++;
        continue;
      }
      // Target creates of one kind go in runs: their intents in one write, then the creates (with
      // the target's bulk create when it has one).
      enter(action);
      const bulkSize = ctx.target.capabilities.bulkCreate;
      const run = createRun(actions, i, bulkSize);
      if (run.length > 1) {
        const hooks: CreateRunHooks = {
          reached: () => {
            ctx.emit({ type: "progress", phase: "apply", done: done++, total });
          },
          failed: async (a, error) => {
            summary.failed++;
            await park(ctx, a, error, parked);
          },
          settle: (a, error) => settle(ctx, summary, a, error, parked, refused),
        };
        // Runs are sent one after the other: the target numbers items in the plan's order (Jira
        // keys, GitHub issue numbers), and a run's drafts expect what the runs before it answered
        // (create-marker.ts). A bulk run's follow-ups go on, each item's concurrently, while the
        // next run is sent.
        await sent.room();
        sent.add(await applyCreateRun(ctx, run, bulkSize > 1, hooks));
        letGo(i, run.length);
        i += run.length;
        continue;
      }
      // Updates and deletions come after every create before them is finished.
      await sent.drain();
      const one = async (action: Exclude<PlanAction, { type: "skip" }>): Promise<void> => {
        enter(action);
        ctx.emit({ type: "progress", phase: "apply", done: done++, total });
        try {
          const claimedBy = await applyOne(ctx, action);
          if (claimedBy !== undefined && action.type === "create")
            leftToOtherJob(ctx, summary, action, claimedBy);
          else await settle(ctx, summary, action, undefined, parked, refused);
        } catch (error) {
          if (isFatal(error)) throw error;
          await settle(ctx, summary, action, error, parked, refused);
        }
      };
      // Updates and re-links of linked items are independent of each other (one writer per
      // item): they go concurrently, the request gate deciding how many requests are in flight.
      // Creates (a story before its tasks, issue numbers in tinyPM's order) and deletions (a
      // story's removal takes its sub-tasks along on Jira) keep the plan's order.
      const group = independentRun(actions, i);
      if (group.length > 0) {
        for (const a of group.skipped) await skipped(a);
        await eachConcurrently(group.actions, one);
        letGo(i, group.length);
        i += group.length;
        continue;
      }
      await one(action);
      letGo(i, 1);
      i++;
    }
    await sent.drain();
  } finally {
    await sent.settled();
  }
  if (total > 0) ctx.emit({ type: "progress", phase: "apply", done, total });
}

/**
 * The actions from `start` on that may go concurrently: updates and re-links (skips among them
 * are counted as they stand), up to the first create or deletion. `length` is how many of the
 * plan's actions it spans.
 */
function independentRun(
  actions: readonly PlanAction[],
  start: number,
): {
  actions: Extract<PlanAction, { type: "update" | "adopt" }>[];
  skipped: Extract<PlanAction, { type: "skip" }>[];
  length: number;
} {
  const out: Extract<PlanAction, { type: "update" | "adopt" }>[] = [];
  const skipped: Extract<PlanAction, { type: "skip" }>[] = [];
  let i = start;
  for (; i < actions.length; i++) {
    const a = actions[i];
    if (a?.type === "update" || a?.type === "adopt") out.push(a);
    else if (a?.type === "skip") skipped.push(a);
    else break;
  }
  return out.length > 1
    ? { actions: out, skipped, length: i - start }
    : { actions: [], skipped: [], length: 0 };
}

/** The phase an action belongs to, in words: `creating stories`, `updating tasks`… */
export function phaseOf(action: PlanAction): string {
  const verb =
    action.type === "create"
      ? "creating"
      : action.type === "delete"
        ? "deleting"
        : action.type === "adopt"
          ? "re-linking"
          : "updating";
  return `${verb} ${action.kind === "story" ? "stories" : "tasks"}`;
}

/**
 * Counts a skipped item. One tinyPM could not read is parked with its error; one parked earlier
 * for that reason and read again with nothing to write is cleared (nothing is left to do).
 */
async function settleSkip(
  ctx: EngineContext,
  summary: RunSummary,
  action: SkipAction,
  parked: Set<string>,
  unreadable: ReadonlySet<string>,
): Promise<void> {
  count(summary, plannedOutcome(action));
  if (action.reason === "unreadable") {
    const failure = action.failure ?? { code: "payload_invalid", message: action.title };
    await park(ctx, action, failure, parked, action.unreadableOn ?? "tinypm");
    return;
  }
  const key = action.tinypmId === undefined ? undefined : `${action.kind}:${action.tinypmId}`;
  if ((action.reason === "unchanged" || action.reason === "echo") && key !== undefined)
    if (unreadable.has(key)) await clearParked(ctx, action, parked);
}

/** Counts an applied action, or parks it with its error. */
async function settle(
  ctx: EngineContext,
  summary: RunSummary,
  action: Exclude<PlanAction, { type: "skip" }>,
  error: unknown,
  parked: Set<string>,
  refused: ReadonlySet<string>,
): Promise<void> {
  if (error === undefined) {
    count(summary, plannedOutcome(action));
    // Its create's confirmation was refused meanwhile: parked then, not to be cleared now.
    if (refused.has(actionKey(action))) return;
    await clearParked(ctx, action, parked);
  } else {
    summary.failed++;
    await park(ctx, action, error, parked);
  }
}

/**
 * An import another job sharing the target claimed between this run's plan and its write: that
 * job imports the item. Counted as unchanged, never as a failure; the report names the job.
 */
function leftToOtherJob(
  ctx: EngineContext,
  summary: RunSummary,
  action: CreateAction,
  claimedBy: string,
): void {
  summary.unchanged++;
  ctx.emit({
    type: "skipped",
    kind: action.kind,
    title: action.title,
    reason: "claimed",
    claimedBy,
    targetId: action.source.id,
  });
}

/** Applies one action; a create another job claimed returns that job instead. */
async function applyOne(
  ctx: EngineContext,
  action: Exclude<PlanAction, { type: "skip" }>,
): Promise<string | undefined> {
  switch (action.type) {
    case "create": {
      const made = await applyCreate(ctx, action);
      return "claimedBy" in made ? made.claimedBy : undefined;
    }
    case "update":
      await applyUpdate(ctx, action);
      return;
    case "delete":
      await applyDelete(ctx, action);
      return;
    case "adopt":
      await adopt(ctx, action.tinypmItem, action.targetItem);
      ctx.emit({
        type: "adopted",
        kind: action.kind,
        title: action.title,
        tinypmId: action.tinypmItem.id,
        targetId: action.targetItem.id,
      });
      return;
  }
}

/** Links a target item that carries our marker but no link (a create whose link was lost). */
async function adopt(ctx: EngineContext, tinypmItem: WorkItem, targetItem: WorkItem) {
  const copied = (s: Snapshot): Snapshot => ({ ...s, comments: [], timeEntries: {} });
  await ctx.state.putLink(
    linkRecord({
      job: ctx.job.name,
      kind: tinypmItem.kind,
      tinypmId: tinypmItem.id,
      targetSystem: ctx.targetSystem,
      targetId: targetItem.id,
      origin: "tinypm",
      parentTinypmId: tinypmItem.parentId,
      // tinyPM's base is empty: whatever the copy still lacks flows on the next plan.
      baseTinypm: EMPTY_SNAPSHOT,
      baseTarget: copied(targetSnapshot(ctx.mapping, targetItem)),
      now: ctx.now(),
    }),
  );
}

/**
 * `kind:id` of either side's id of every item the job has parked now, and `kind:tinypmId` of
 * those parked because a side sent them unreadable.
 */
async function parkedItems(
  ctx: EngineContext,
): Promise<{ parked: Set<string>; unreadable: Set<string> }> {
  const parked = new Set<string>();
  const unreadable = new Set<string>();
  for (const f of await ctx.state.failures(ctx.job.name)) {
    if (f.tinypmId !== undefined) parked.add(`${f.kind}:${f.tinypmId}`);
    if (f.targetId !== undefined) parked.add(`${f.kind}:${f.targetId}`);
    // Unreadable on either side (a target's refused write too: cleared alike once nothing is
    // left to write).
    if (f.code === "payload_invalid" && f.tinypmId !== undefined)
      unreadable.add(`${f.kind}:${f.tinypmId}`);
  }
  return { parked, unreadable };
}

async function park(
  ctx: EngineContext,
  action: PlanAction,
  error: unknown,
  parked: Set<string>,
  failedOn?: "tinypm" | "target",
): Promise<void> {
  const { tinypmId, targetId } = actionIds(action);
  // Before the write: should it land and the call still fail, the clear is still tried.
  if (tinypmId !== undefined) parked.add(`${action.kind}:${tinypmId}`);
  if (targetId !== undefined) parked.add(`${action.kind}:${targetId}`);
  const given = isFailure(error) ? error : undefined;
  const code = given?.code ?? (error instanceof SyncError ? error.code : "internal");
  const message = given?.message ?? (error instanceof Error ? error.message : String(error));
  const side = failedOn ?? (action.type === "create" ? action.toSide : "target");
  await ctx.state.parkFailure({
    runId: ctx.runId,
    job: ctx.job.name,
    kind: action.kind,
    ...actionIds(action),
    side,
    code,
    message,
  });
  ctx.emit({
    type: "failed",
    kind: action.kind,
    title: action.title,
    ...actionIds(action),
    code,
    message,
  });
}

/** A failure already put in words (an unreadable item's), not an error thrown. */
function isFailure(e: unknown): e is { code: string; message: string } {
  return (
    typeof e === "object" &&
    e !== null &&
    !(e instanceof Error) &&
    typeof (e as { code?: unknown }).code === "string" &&
    typeof (e as { message?: unknown }).message === "string"
  );
}

async function clearParked(
  ctx: EngineContext,
  action: PlanAction,
  parked: Set<string>,
): Promise<void> {
  const { tinypmId, targetId } = actionIds(action);
  const id = tinypmId ?? targetId;
  if (id === undefined) return;
  // The state clears the failures naming `id` on either side: so is it known here.
  if (!parked.has(`${action.kind}:${id}`)) return;
  await ctx.state.clearFailure(ctx.job.name, action.kind, id);
  parked.delete(`${action.kind}:${id}`);
}
