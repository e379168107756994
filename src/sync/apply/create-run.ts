import type { EngineContext } from "../context.js";
import type { CreateAction, PlanAction } from "../plan/plan-types.js";
import { finishCreateBatch, sendCreateBatch } from "./apply-batch.js";
import {
  createOne,
  draftCreate,
  type DraftedCreate,
  noteAnswered,
  type PreparedCreate,
} from "./apply-create.js";
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

/** A run of creates sent: `finished` settles once every item's follow-ups are done. */
export interface SentRun {
  readonly finished: Promise<void>;
}

/**
 * Applies a run of target creates: builds each draft, records all their intents in one write
 * (all or none) — each intent is durable before its create is sent, as with one intent at a
 * time — then creates them with the target's bulk create, or one by one. An intent whose create
 * was never sent (the run stopped first) is dropped by the next run, which finds no item with
 * its marker and creates the item then.
 *
 * With a bulk create, the promise resolves once the target answered the call: its items' ids and
 * what it held are noted for the next run's drafts, and their follow-ups (links, comments, time
 * entries) go on in `finished` while the next run is sent. One by one, it resolves when all is
 * done.
 */
export async function applyCreateRun(
  ctx: EngineContext,
  run: readonly CreateAction[],
  bulk: boolean,
  hooks: CreateRunHooks,
): Promise<SentRun> {
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
    const answer = await sendCreateBatch(ctx, prepared);
    for (const [k, p] of prepared.entries()) {
      const made = answer[k];
      if (made !== undefined && !(made instanceof Error)) noteAnswered(ctx, p, made, false);
    }
    const finished = finishCreateBatch(ctx, prepared, answer).then(async (errors) => {
      for (const [k, p] of prepared.entries()) await hooks.settle(p.action, errors[k]);
    });
    // An item the call failed for is looked up (and made on its own) in its follow-ups: the next
    // run waits for them, as its tasks may need that story.
    if (answer.some((a) => a instanceof Error)) await finished;
    return { finished };
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
  return { finished: Promise.resolve() };
}

/**
 * How many bulk runs' follow-ups may go on at once: the next run is sent while the previous
 * one's comments, time entries and links are written, so that the request gate always has work.
 */
export const RUNS_IN_FLIGHT = 2;

/** The bulk runs whose follow-ups are still going while later runs are sent, oldest first. */
export class RunsInFlight {
  readonly #runs: Promise<void>[] = [];
  #failure: { readonly error: unknown } | undefined;

  add(run: SentRun): void {
    this.#runs.push(
      run.finished.catch((error: unknown) => {
        this.#failure ??= { error };
      }),
    );
  }

  /** Waits until another run may be sent; rethrows what stopped a run's follow-ups. */
  room(): Promise<void> {
    return this.#wait(RUNS_IN_FLIGHT - 1);
  }

  /** Waits for every run's follow-ups (before an action that is not a create run). */
  drain(): Promise<void> {
    return this.#wait(0);
  }

  /** Waits for every run's follow-ups however they end: the apply is stopping. */
  async settled(): Promise<void> {
    await Promise.all(this.#runs.splice(0));
  }

  async #wait(keep: number): Promise<void> {
    while (this.#runs.length > keep) await this.#runs.shift();
    if (this.#failure !== undefined) throw this.#failure.error;
  }
}
