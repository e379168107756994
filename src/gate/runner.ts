import type PQueue from "p-queue";
import { InterruptedError, SyncError } from "../core/errors.js";
import type { SystemName } from "../core/model.js";
import { linkedSignal } from "../core/abort-watch.js";
import type { LaneOp, QueueEvent } from "./lanes.js";
import type { RetryPolicy } from "./retry.js";
import { isAmbiguous, retryDelay } from "./retry.js";
import { retriesSpent } from "./spent.js";
import type { Clock } from "./virtual-clock.js";

/** One system's queue of item operations. */
export interface Lane {
  readonly system: SystemName;
  readonly queue: PQueue;
  /** Creates run again after `recover` found nothing. */
  retries: number;
}

/** What one attempt came to: a result, or a failure and whether running again is safe. */
type Attempt<T> =
  | { readonly done: true; readonly value: T }
  | {
      readonly done: false;
      readonly failure: unknown;
      /** recover() showed the failed create did nothing, or the lookup itself failed. */
      readonly repeatable: boolean;
      /** The effect lookup itself failed: look again before running the operation again. */
      readonly recoverFirst: boolean;
    };

/** Dependencies of the recover loop. */
interface RunnerDeps {
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly policy: RetryPolicy;
  readonly random: (() => number) | undefined;
  readonly emit: ((e: QueueEvent) => void) | undefined;
}

/**
 * The item side of retrying: a create that failed ambiguously is looked for (`recover`) and run
 * again only when it is not there. Every other repeat is the request gate's (per request).
 */
export function createRunner(d: RunnerDeps) {
  const { clock, signal } = d;
  const interrupted = (lane: Lane, op: LaneOp<unknown>, cause: unknown): InterruptedError =>
    cause instanceof InterruptedError
      ? cause
      : new InterruptedError(`Stopped before ${op.name} on ${lane.system} finished.`, {
          hint: "Run the command again: it resumes where it stopped.",
          cause,
        });

  /** Tries `op.recover` after an ambiguous failure; `found` when it returned a result. */
  const tryRecover = async <T>(
    op: LaneOp<T>,
  ): Promise<{ found: true; value: T } | { found: false; error?: unknown }> => {
    if (op.recover === undefined) return { found: false };
    try {
      const value = await op.recover();
      return value === undefined ? { found: false } : { found: true, value };
    } catch (error) {
      return { found: false, error };
    }
  };

  /** One attempt: the effect lookup first if a previous one failed, then the operation. */
  const attemptOnce = async <T>(op: LaneOp<T>, recoverFirst: boolean): Promise<Attempt<T>> => {
    if (recoverFirst) {
      const recovered = await tryRecover(op);
      if (recovered.found) return { done: true, value: recovered.value };
      if ("error" in recovered)
        return { done: false, failure: recovered.error, repeatable: true, recoverFirst: true };
    }
    try {
      return { done: true, value: await op.run(signal) };
    } catch (error) {
      if (signal.aborted)
        return { done: false, failure: error, repeatable: false, recoverFirst: false };
      // A unit safe to repeat (a read, or an ensure: look up, then create when missing) runs again
      // as a whole after an ambiguous failure the gate could not retry away (its create's, or a
      // request that kept failing), within the retry policy's attempts and time.
      if (op.idempotent)
        return {
          done: false,
          failure: error,
          repeatable: isAmbiguous(error) && !retriesSpent(error),
          recoverFirst: false,
        };
      if (op.recover === undefined || !isAmbiguous(error)) {
        return { done: false, failure: error, repeatable: false, recoverFirst: false };
      }
      // An ambiguous failure of a create: look for its effect before anything else.
      const recovered = await tryRecover(op);
      if (recovered.found) return { done: true, value: recovered.value };
      if ("error" in recovered)
        return { done: false, failure: recovered.error, repeatable: true, recoverFirst: true };
      // Not created: running it again cannot duplicate it.
      return { done: false, failure: error, repeatable: true, recoverFirst: false };
    }
  };

  /** Runs `op` until it succeeds, cannot safely run again (throws), or the run stops. */
  const execute = async <T>(lane: Lane, op: LaneOp<T>): Promise<T> => {
    const started = clock.now();
    let recoverFirst = false;
    for (let attempt = 1; ; attempt++) {
      const outcome: Attempt<T> = await attemptOnce(op, recoverFirst);
      if (outcome.done) return outcome.value;
      if (signal.aborted) throw interrupted(lane, op, outcome.failure);
      if (!outcome.repeatable) throw outcome.failure;
      recoverFirst = outcome.recoverFirst;
      const failure = outcome.failure;
      const delay = retryDelay({
        attempt,
        error: failure,
        policy: d.policy,
        idempotent: true,
        elapsedMs: clock.now() - started,
        ...(d.random === undefined ? {} : { random: d.random }),
      });
      if (delay === undefined) throw failure;
      lane.retries++;
      d.emit?.({
        type: "retry",
        system: lane.system,
        attempt,
        delayMs: delay,
        code: failure instanceof SyncError ? failure.code : "unknown",
        operation: op.name,
        reason: failure instanceof Error ? failure.message : String(failure),
      });
      // A linked signal per backoff: the run's keeps one listener however many items back off.
      const linked = linkedSignal(signal);
      try {
        await clock.sleep(delay, linked.signal);
      } catch (error) {
        throw interrupted(lane, op, error);
      } finally {
        linked.release();
      }
    }
  };

  return { execute, interrupted };
}
