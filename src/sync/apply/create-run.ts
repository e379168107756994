import type { EngineContext } from "../context.js";
import type { CreateAction, PlanAction } from "../plan/plan-types.js";
import { applyCreateBatch } from "./apply-batch.js";
import { createOne, draftCreate, type DraftedCreate, type PreparedCreate } from "./apply-create.js";
import { isFatal } from "./fatal.js";

/**
 * Target creates of one kind whose intents go in one write: on a target without a bulk create,
 * up to this many creates sent one by one after it.
 */
export const INTENT_BLOCK = 50;

/** What a run of creates reports back to the apply loop. */
export interface CreateRunHooks {
  /** One more item reached (the progress count). */
  readonly reached: () => void;
  /** An item whose draft could not be built: failed, parked. */
  readonly failed: (action: CreateAction, error: unknown) => Promise<void>;
  /** An item created (`error` undefined) or failed. */
  readonly settle: (action: CreateAction, error: unknown) => Promise<void>;
}

/**
 * The target creates of one kind from `start` on that share one write of their intents: up to
 * the target's bulk size, or `INTENT_BLOCK` on a target without a bulk create (none if 1).
 */
export function createRun(
  actions: readonly PlanAction[],
  start: number,
  bulkSize: number,
): CreateAction[] {
  const size = bulkSize > 1 ? bulkSize : INTENT_BLOCK;
  const first = actions[start];
  if (size <= 1 || first?.type !== "create" || first.toSide !== "target") return [];
  const run = [first];
  for (let i = start + 1; i < actions.length && run.length < size; i++) {
    const a = actions[i];
    if (a?.type !== "create" || a.toSide !== "target" || a.kind !== first.kind) break;
    run.push(a);
  }
  return run;
}

/**
 * Applies a run of target creates: builds each draft, records all their intents in one write
 * (all or none) — each intent is durable before its create is sent, as with one intent at a
 * time — then creates them with the target's bulk create, or one by one. An intent whose create
 * was never sent (the run stopped first) is dropped by the next run, which finds no item with
 * its marker and creates the item then.
 */
export async function applyCreateRun(
  ctx: EngineContext,
  run: readonly CreateAction[],
  bulk: boolean,
  hooks: CreateRunHooks,
): Promise<void> {
  const drafted: DraftedCreate[] = [];
  for (const a of run) {
    if (bulk) hooks.reached();
    try {
      // Target creates only: they claim nothing.
      drafted.push(await draftCreate(ctx, a));
    } catch (error) {
      if (isFatal(error)) throw error;
      if (!bulk) hooks.reached();
      await hooks.failed(a, error);
    }
  }
  const ids = await ctx.state.recordIntents(drafted.map((d) => d.intent));
  const prepared: PreparedCreate[] = drafted.map((d, k) => ({
    action: d.action,
    draft: d.draft,
    intentId: ids[k] ?? 0,
  }));
  if (bulk) {
    const errors = await applyCreateBatch(ctx, prepared);
    for (const [k, p] of prepared.entries()) await hooks.settle(p.action, errors[k]);
    return;
  }
  for (const p of prepared) {
    hooks.reached();
    let failure: unknown;
    try {
      await createOne(ctx, p, false);
    } catch (error) {
      if (isFatal(error)) throw error;
      failure = error ?? new Error("create failed");
    }
    await hooks.settle(p.action, failure);
  }
}
