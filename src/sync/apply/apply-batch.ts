import { RateLimitError, SyncError } from "../../core/errors.js";
import type { WorkItem } from "../../core/model.js";
import { isAmbiguous } from "../../gate/retry.js";
import { createOne, finishCreate, type PreparedCreate } from "./apply-create.js";
import { call, type EngineContext } from "../context.js";
import { eachConcurrently } from "./concurrent.js";
import { isFatal } from "./fatal.js";

/** Per create of a bulk call: the item the target made, or the error the call gave for it. */
export type BatchAnswer = readonly (WorkItem | Error)[];

/**
 * Sends a run of prepared creates of one kind to the target's bulk create, in order, and
 * returns its answer per create. A failure of the whole call is every create's error: each is
 * then looked up before any second create (`finishCreateBatch`).
 */
export async function sendCreateBatch(
  ctx: EngineContext,
  batch: readonly PreparedCreate[],
): Promise<BatchAnswer> {
  const first = batch[0];
  if (first === undefined) return [];
  return call(ctx, "target", {
    name: `create ${batch.length} ${first.action.kind}s`,
    kind: "write",
    run: () => ctx.target.createMany(batch.map((p) => p.draft)),
  }).catch((error: unknown) => batch.map(() => asError(error)));
}

/**
 * Finishes a run of bulk creates from the call's answer. Returns, per create, `undefined` when
 * it was made and finished, or the error it failed with. An item the bulk call failed for
 * ambiguously (or refused for a rate limit) is looked up by marker and, when missing, created on
 * its own; one it refused outright is not created at all.
 */
export async function finishCreateBatch(
  ctx: EngineContext,
  batch: readonly PreparedCreate[],
  results: BatchAnswer,
): Promise<(Error | undefined)[]> {
  // Each item's follow-ups (its finish, or its lookup and create on its own) run concurrently:
  // the items are independent, and the request gate decides how many requests go at once.
  const out: (Error | undefined)[] = batch.map(() => undefined);
  await eachConcurrently(batch, async (p, i) => {
    const result = results[i] ?? new Error("the bulk create gave no answer for this item");
    try {
      if (!(result instanceof Error)) await finishCreate(ctx, p, result, false);
      else if (mayExist(result)) await createOne(ctx, p, true);
      else {
        await ctx.state.dropIntent(p.intentId);
        throw result;
      }
    } catch (error) {
      if (isFatal(error)) throw error;
      out[i] = asError(error);
    }
  });
  return out;
}

/** Whether a failed create may still have happened (or may be repeated): not a refusal. */
function mayExist(error: Error): boolean {
  return isAmbiguous(error) || error instanceof RateLimitError || !(error instanceof SyncError);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
