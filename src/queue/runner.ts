import type PQueue from "p-queue";
import { InterruptedError, RateLimitError, SyncError } from "../core/errors.js";
import type { SystemName } from "../core/model.js";
import type { LaneCounters, LaneOp, QueueEvent } from "./lanes.js";
import type { Pacer } from "./pacer.js";
import type { RetryPolicy } from "./retry.js";
import { isAmbiguous, retryDelay } from "./retry.js";
import type { Clock } from "./virtual-clock.js";

/** One system's queue, pacers, pause and counters. */
export interface Lane {
  readonly system: SystemName;
  readonly queue: PQueue;
  readonly pacers: Readonly<Record<"read" | "write", Pacer>>;
  /** Reads are paced per remote request within a call, not per call. */
  readonly pacePerRequest: boolean;
  /** Clock time until which no call of the lane starts (a rate-limit pause). */
  pausedUntil: number;
  readonly counters: LaneCounters;
}

/** What one attempt came to: a result, or a failure and how to go on. */
type Attempt<T> =
  | { readonly done: true; readonly value: T }
  | {
      readonly done: false;
      readonly failure: unknown;
      /** Whether repeating is safe: the op is idempotent, or recover() showed nothing happened. */
      readonly idempotent: boolean;
      /** The effect lookup itself failed: look again before repeating the call. */
      readonly recoverFirst: boolean;
    };

/** Dependencies of the retry loop. */
export interface RunnerDeps {
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly policy: RetryPolicy;
  readonly random: (() => number) | undefined;
  readonly emit: ((e: QueueEvent) => void) | undefined;
}

/** The retry loop, pacing gate and reporting of one set of lanes. */
export function createRunner(d: RunnerDeps) {
  const { clock, signal } = d;
  const interrupted = (lane: Lane, op: LaneOp<unknown>, cause: unknown): InterruptedError =>
    cause instanceof InterruptedError
      ? cause
      : new InterruptedError(`Stopped before ${op.name} on ${lane.system} finished.`, {
          hint: "Run the command again: it resumes where it stopped.",
          cause,
        });
  const sleepUntil = async (at: number): Promise<void> => {
    const ms = at - clock.now();
    if (ms > 0) await clock.sleep(ms, signal);
  };
  const pause = (lane: Lane, ms: number, operation: string): void => {
    lane.pausedUntil = Math.max(lane.pausedUntil, clock.now() + ms);
    lane.counters.rateLimitWaits++;
    lane.counters.waitedMs += ms;
    d.emit?.({ type: "rate_limited", system: lane.system, waitMs: ms, operation });
  };
  /** Waits for the lane to be unpaused and for a start slot of this kind, then counts the call. */
  const gate = async (lane: Lane, kind: "read" | "write"): Promise<void> => {
    for (;;) {
      await sleepUntil(lane.pausedUntil);
      const slot = lane.pacers[kind].reserve(clock.now());
      await sleepUntil(slot);
      if (lane.pausedUntil <= clock.now()) break;
      lane.pacers[kind].cancel(slot);
    }
    lane.counters[kind === "read" ? "reads" : "writes"]++;
  };
  /** A request inside a lane call: it waits out a pause; it is paced when the lane paces requests. */
  const unpaused = async (lane: Lane): Promise<void> => {
    while (lane.pausedUntil > clock.now()) await sleepUntil(lane.pausedUntil);
  };
  const call = async <T>(
    lane: Lane,
    kind: "read" | "write",
    fn: () => Promise<T>,
    inner = false,
  ): Promise<T> => {
    const perRequest = lane.pacePerRequest && kind === "read";
    // Per-request lanes pace the requests inside a read rather than the read as a whole.
    if (inner ? perRequest : !perRequest) await gate(lane, kind);
    else await unpaused(lane);
    return fn();
  };
  /** Failures a request inside a lane call was already retried for: the call does not repeat. */
  const exhausted = new WeakSet<object>();
  const wasExhausted = (failure: unknown): boolean =>
    failure instanceof Object && exhausted.has(failure);

  /** Tries `op.recover` after an ambiguous failure; `found` when it returned a result. */
  const tryRecover = async <T>(
    lane: Lane,
    op: LaneOp<T>,
  ): Promise<{ found: true; value: T } | { found: false; error?: unknown }> => {
    if (op.recover === undefined) return { found: false };
    try {
      const value = await call(lane, "read", op.recover);
      return value === undefined ? { found: false } : { found: true, value };
    } catch (error) {
      return { found: false, error };
    }
  };

  /** One attempt: the effect lookup first if a previous one failed, then the call. */
  const attemptOnce = async <T>(
    lane: Lane,
    op: LaneOp<T>,
    recoverFirst: boolean,
    inner: boolean,
  ): Promise<Attempt<T>> => {
    if (recoverFirst) {
      const recovered = await tryRecover(lane, op);
      if (recovered.found) return { done: true, value: recovered.value };
      if ("error" in recovered)
        return { done: false, failure: recovered.error, idempotent: true, recoverFirst: true };
    }
    try {
      return { done: true, value: await call(lane, op.kind, () => op.run(signal), inner) };
    } catch (error) {
      if (op.idempotent || op.recover === undefined || !isAmbiguous(error) || signal.aborted) {
        return { done: false, failure: error, idempotent: op.idempotent, recoverFirst: false };
      }
      // An ambiguous failure of a create: look for its effect before anything else.
      const recovered = await tryRecover(lane, op);
      if (recovered.found) return { done: true, value: recovered.value };
      if ("error" in recovered)
        return { done: false, failure: recovered.error, idempotent: true, recoverFirst: true };
      // Not created: a retry cannot duplicate it.
      return { done: false, failure: error, idempotent: true, recoverFirst: false };
    }
  };

  /**
   * Runs `op` until it succeeds, the policy gives up (throws the last error) or the run stops.
   * `inner`: a request made within a running lane call (see `remoteRead`): not paced again, and
   * when it gives up, the enclosing call is not repeated for that failure.
   */
  const execute = async <T>(lane: Lane, op: LaneOp<T>, inner = false): Promise<T> => {
    const started = clock.now();
    let recoverFirst = false;
    for (let attempt = 1; ; attempt++) {
      const outcome: Attempt<T> = await attemptOnce(lane, op, recoverFirst, inner);
      if (outcome.done) return outcome.value;
      if (signal.aborted) throw interrupted(lane, op, outcome.failure);
      recoverFirst = outcome.recoverFirst;
      const failure = outcome.failure;
      if (wasExhausted(failure)) throw failure;
      try {
        await backoff(lane, op, { attempt, failure, idempotent: outcome.idempotent, started });
      } catch (error) {
        if (inner && error === failure && error instanceof Object) exhausted.add(error);
        throw error;
      }
    }
  };

  /** One idempotent request within a running lane call, retried on its own. */
  const executeRequest = <T>(lane: Lane, name: string, read: () => Promise<T>): Promise<T> =>
    execute(lane, { name, kind: "read", idempotent: true, run: () => read() }, true);

  const backoff = async (
    lane: Lane,
    op: LaneOp<unknown>,
    a: { attempt: number; failure: unknown; idempotent: boolean; started: number },
  ): Promise<void> => {
    if (a.failure instanceof RateLimitError) pause(lane, a.failure.retryAfterMs, op.name);
    const delay = retryDelay({
      attempt: a.attempt,
      error: a.failure,
      policy: d.policy,
      idempotent: a.idempotent,
      elapsedMs: clock.now() - a.started,
      ...(d.random === undefined ? {} : { random: d.random }),
    });
    if (delay === undefined) throw a.failure;
    lane.counters.retries++;
    const code = a.failure instanceof SyncError ? a.failure.code : "unknown";
    d.emit?.({
      type: "retry",
      system: lane.system,
      attempt: a.attempt,
      delayMs: delay,
      code,
      operation: op.name,
      reason: a.failure instanceof Error ? a.failure.message : String(a.failure),
    });
    try {
      await sleepUntil(clock.now() + delay);
    } catch (error) {
      throw interrupted(lane, op, error);
    }
  };

  return { execute, executeRequest, pause, interrupted };
}
