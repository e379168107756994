import {
  AuthError,
  InterruptedError,
  PermissionError,
  RemoteUnavailableError,
  SyncError,
} from "../core/errors.js";
import type { WorkItem } from "../core/model.js";
import { applyCreate } from "./apply-create.js";
import { applyDelete, applyUpdate } from "./apply-update.js";
import type { EngineContext } from "./context.js";
import type { RunSummary } from "./events.js";
import { linkRecord } from "./links.js";
import { targetSnapshot } from "./plan.js";
import { actionBucket, type Plan, type PlanAction } from "./plan-types.js";
import { EMPTY_SNAPSHOT, type Snapshot } from "./snapshot.js";

/**
 * Errors that stop the whole run: nothing more can succeed until the user acts (exit 3), or the
 * user stopped it (exit 130; the items not reached are not failures, the next run does them).
 */
export function isFatal(error: unknown): boolean {
  return (
    error instanceof InterruptedError ||
    error instanceof AuthError ||
    error instanceof PermissionError ||
    error instanceof RemoteUnavailableError
  );
}

/**
 * Applies a plan, action by action. A failing item is parked in the state with its error and the
 * run goes on; an error that no later item can escape (auth, permission, remote down after the
 * queue's retries) stops the run and is rethrown.
 */
export async function applyPlan(
  ctx: EngineContext,
  plan: Plan,
  summary: RunSummary,
): Promise<void> {
  const total = plan.actions.filter((a) => a.type !== "skip").length;
  let done = 0;
  for (const action of plan.actions) {
    if (action.type === "skip") {
      summary.unchanged++;
      continue;
    }
    ctx.emit({ type: "progress", phase: "apply", done: done++, total });
    try {
      await applyOne(ctx, action);
      summary[actionBucket(action)]++;
      clearParked(ctx, action);
    } catch (error) {
      if (isFatal(error)) throw error;
      summary.failed++;
      park(ctx, action, error);
    }
  }
  if (total > 0) ctx.emit({ type: "progress", phase: "apply", done, total });
}

async function applyOne(
  ctx: EngineContext,
  action: Exclude<PlanAction, { type: "skip" }>,
): Promise<void> {
  switch (action.type) {
    case "create":
      await applyCreate(ctx, action);
      return;
    case "update":
      await applyUpdate(ctx, action);
      return;
    case "delete":
      await applyDelete(ctx, action);
      return;
    case "adopt":
      adopt(ctx, action.tinypmItem, action.targetItem);
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
function adopt(ctx: EngineContext, tinypmItem: WorkItem, targetItem: WorkItem): void {
  const copied = (s: Snapshot): Snapshot => ({ ...s, comments: [], timeEntries: {} });
  ctx.state.putLink(
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

function ids(action: PlanAction): { tinypmId?: string | undefined; targetId?: string | undefined } {
  switch (action.type) {
    case "create":
      return action.toSide === "target"
        ? { tinypmId: action.source.id }
        : { targetId: action.source.id };
    case "update":
    case "delete":
      return { tinypmId: action.link.tinypmId, targetId: action.link.targetId };
    case "adopt":
      return { tinypmId: action.tinypmItem.id, targetId: action.targetItem.id };
    case "skip":
      return { tinypmId: action.tinypmId, targetId: action.targetId };
  }
}

function park(ctx: EngineContext, action: PlanAction, error: unknown): void {
  const code = error instanceof SyncError ? error.code : "internal";
  const message = error instanceof Error ? error.message : String(error);
  const side = action.type === "create" ? action.toSide : "target";
  ctx.state.parkFailure({
    runId: ctx.runId,
    job: ctx.job.name,
    kind: action.kind,
    ...ids(action),
    side,
    code,
    message,
  });
  ctx.emit({ type: "failed", kind: action.kind, title: action.title, code, message });
}

function clearParked(ctx: EngineContext, action: PlanAction): void {
  const { tinypmId, targetId } = ids(action);
  const id = tinypmId ?? targetId;
  if (id !== undefined) ctx.state.clearFailure(ctx.job.name, action.kind, id);
}
