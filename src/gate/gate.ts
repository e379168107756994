import { setMaxListeners } from "node:events";
import {
  InterruptedError,
  LimitWaitError,
  RateLimitError,
  RemoteUnavailableError,
  SyncError,
} from "../core/errors.js";
import type { SystemName } from "../core/model.js";
import type { GateEvent, GateRequest, RequestGate, WaitReason } from "../core/request-gate.js";
import type { WriteFence } from "../core/write-fence.js";
import { createCompletionPacer } from "./completion-pacer.js";
import type { GateLimits } from "./gate-limits.js";
import { checkGateLimits, DEFAULT_TIMEOUT_MS } from "./gate-limits.js";
import { createRunWaits, type GateCounters, type RunWaits } from "./gate-waits.js";
import { createKeyedWindows } from "./keyed-windows.js";
import { createPacer } from "./pacer.js";
import type { RetryPolicy } from "./retry.js";
import { DEFAULT_RETRY_POLICY, isAmbiguous, retryDelay } from "./retry.js";
import { createSemaphore } from "./semaphore.js";
import {
  createSharedBooker,
  sharedPlan,
  type SharedGateBudget,
  type SharedSlot,
  type WaitingWrite,
} from "./shared-windows.js";
import { realClock, type Clock } from "./virtual-clock.js";
import { linkedSignals, watchAbort } from "../core/abort-watch.js";

export type { GateCounters } from "./gate-waits.js";

/** Options of `createGate`: one token's limits on one service. */
export interface GateOptions {
  readonly system: SystemName;
  readonly limits: GateLimits;
  /** For messages: `GitHub (https://api.github.com)`. @default the system's name */
  readonly label?: string | undefined;
  /** Pacing and backoff clock (a virtual clock in tests). Request timeouts use real time. */
  readonly clock?: Clock | undefined;
  /** @default DEFAULT_RETRY_POLICY */
  readonly policy?: RetryPolicy | undefined;
  /** For the retry jitter. @default Math.random */
  readonly random?: (() => number) | undefined;
  /**
   * The token's write budget shared with other processes (several workers on one PostgreSQL
   * state): each write is also booked there, on top of this gate's own windows.
   */
  readonly shared?: SharedGateBudget | undefined;
}

/** One run's use of a gate. */
export interface RunGateOptions {
  /** Stops the run: every wait and request of the run ends at once (InterruptedError). */
  readonly signal?: AbortSignal | undefined;
  readonly onEvent?: ((e: GateEvent) => void) | undefined;
  /**
   * Longest wait for a limit the run accepts; a longer one stops it before the request
   * (LimitWaitError, exit 3). `Infinity` waits whatever it takes (`--wait-for-limits`).
   * @default DEFAULT_WAIT_BUDGET_MS
   */
  readonly maxWaitMs?: number | undefined;
  /**
   * The run's job lease, as a fence: once it closes, no write of the run is sent (checked before
   * the write waits for its limits and again just before it goes out), and every other request
   * and wait of the run stops as if `signal` had aborted.
   */
  readonly fence?: WriteFence | undefined;
}

/**
 * The gate's retry turns for one unit it cannot repeat on its own: an ensure made of several
 * requests (look up, then create), whose create is not safe to send twice unless a look showed it
 * did nothing. `next` takes the unit's failure and either waits the policy's backoff (counted as a
 * retry, told as the gate's `retry` event) and resolves `true`, or resolves `false`: give up.
 */
export interface RetryTurns {
  next(failure: unknown): Promise<boolean>;
}

/** The gate as one run sees it: its requests, counted. */
export interface RunGate extends RequestGate {
  readonly system: SystemName;
  counters(): GateCounters;
  /** Retry turns, under the gate's policy, for the unit `name` (see `RetryTurns`). */
  retries(name: string): RetryTurns;
  /**
   * Ends the run's watch on its stop signal, which may outlive the run (`serve`'s lives as long
   * as the process): call it when the run is over. The gate is not to be used after it.
   */
  release(): void;
}

/** One token's gate: the limits every run using that token shares. */
export interface Gate {
  readonly system: SystemName;
  readonly limits: GateLimits;
  forRun(o?: RunGateOptions): RunGate;
}

/** A run waits up to 10 minutes for a limit before it stops (the retry policy's budget). */
const DEFAULT_WAIT_BUDGET_MS = DEFAULT_RETRY_POLICY.maxTotalMs;

/** Status of a result, for the `request` event (adapters' responses carry theirs). */
function statusOf(value: unknown): number {
  const status = (value as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : 200;
}

/** Whether the run was stopped (a function: the answer changes across awaits). */
function stopped(run: RunWaits): boolean {
  return run.signal.aborted;
}

/** Rejects when `signal` aborts, whether or not `promise` listens to it. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const unwatch = watchAbort(signal, () => {
      reject(signal.reason as Error);
    });
    promise.then(
      (v) => {
        unwatch();
        resolve(v);
      },
      (e: unknown) => {
        unwatch();
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/**
 * The request gate of one token on one service: requests in flight (`concurrency`), sliding
 * windows per second / minute / hour (start- or completion-anchored), keyed windows, a pause
 * when the service says `Retry-After` or reset, a bounded time per request, and retries of
 * requests that are safe to repeat (`retry.ts`). Every wait is an event of the run that met it.
 *
 * @example
 * const gate = createGate({ system: "github", limits: { writesPerMinute: 80, writesPerHour: 500,
 *   writeWindows: "completion" } }).forRun({ signal, onEvent });
 * const res = await gate.request({ system: "github", kind: "write", name: "POST /issues",
 *   idempotent: false, send: (signal) => octokit.request({ …, request: { signal } }) });
 */
export function createGate(o: GateOptions): Gate {
  const { system, limits } = o;
  checkGateLimits(system, limits);
  const clock = o.clock ?? realClock;
  const policy = o.policy ?? DEFAULT_RETRY_POLICY;
  const label = o.label ?? system;
  const scale = limits.timeScale ?? 1;
  const timeoutMs = limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const concurrency = createSemaphore(limits.concurrency ?? 4);
  const reads = createPacer(
    limits.readsPerSecond === undefined
      ? []
      : [{ limit: limits.readsPerSecond, windowMs: 1_000 / scale }],
  );
  const startWrites = createPacer(
    [
      { limit: limits.writesPerMinute ?? Infinity, windowMs: 60_000 / scale },
      { limit: limits.writesPerHour ?? Infinity, windowMs: 3_600_000 / scale },
    ].filter((w) => Number.isFinite(w.limit)),
  );
  const completionWrites =
    limits.writeWindows === "completion"
      ? createCompletionPacer({
          writesPerMinute: limits.writesPerMinute ?? Infinity,
          writesPerHour: limits.writesPerHour ?? Infinity,
          timeScale: scale,
          now: clock.now,
          sleep: clock.sleep,
        })
      : undefined;
  const keyed =
    limits.keyWindows === undefined || limits.keyWindows.length === 0
      ? undefined
      : createKeyedWindows({
          windows: limits.keyWindows.map((w) => ({ max: w.max, ms: w.ms / scale })),
          now: clock.now,
        });
  /** Clock time until which the service asked for no request (Retry-After, reset). */
  let pausedUntil = 0;
  const minuteMs = 60_000 / scale;
  const windowReason = (waitMs: number): WaitReason => (waitMs > minuteMs ? "hour" : "minute");
  const shared = o.shared;
  const plan = shared === undefined ? undefined : sharedPlan(limits);
  const booker =
    shared === undefined || plan === undefined
      ? undefined
      : createSharedBooker({ shared, plan, clock });

  /** Books the write in the shared budget (when there is one) and waits for its slot. */
  const book = (
    req: GateRequest<unknown>,
    run: RunWaits,
    ticket?: WaitingWrite,
  ): Promise<SharedSlot | undefined> =>
    booker === undefined || req.kind !== "write"
      ? Promise.resolve(undefined)
      : booker.take({ run, name: req.name, reason: windowReason, ticket });

  /** Waits for every window of `req` to allow it; returns what to call once it is answered. */
  const admit = async (req: GateRequest<unknown>, run: RunWaits): Promise<() => void> => {
    // Counted as waiting from now on, so that the shared budget books blocks for the writes
    // held by this gate's own windows too.
    const ticket = req.kind === "write" ? booker?.announce() : undefined;
    try {
      return await admitCounted(req, run, ticket);
    } finally {
      ticket?.leave();
    }
  };

  const admitCounted = async (
    req: GateRequest<unknown>,
    run: RunWaits,
    ticket: WaitingWrite | undefined,
  ): Promise<() => void> => {
    if (pausedUntil > clock.now()) await run.wait("service", pausedUntil, req.name);
    let done = (): void => undefined;
    if (req.kind === "write" && completionWrites !== undefined) {
      const ahead = completionWrites.delayMs();
      const until = clock.now() + ahead;
      const reason = windowReason(ahead);
      run.checkBudget(reason, until, req.name);
      // Writes queued before this one may take the slots it expected: each further wait is the
      // run's too (announced, held to its budget, cut short by its signal).
      const waitUntil = (at: number): Promise<void> =>
        run.wait(windowReason(at - clock.now()), at, req.name);
      done = await run.wait(reason, until, req.name).then(() =>
        completionWrites.acquire(run.signal, waitUntil).catch((e: unknown) => {
          throw e instanceof LimitWaitError || e instanceof InterruptedError
            ? e
            : run.interrupted(req.name, e);
        }),
      );
    } else {
      const pacer = req.kind === "write" ? startWrites : reads;
      const slot = pacer.reserve(clock.now());
      const reason: WaitReason = req.kind === "write" ? windowReason(slot - clock.now()) : "second";
      try {
        await run.wait(reason, slot, req.name);
      } catch (error) {
        pacer.cancel(slot);
        throw error;
      }
    }
    let slot: SharedSlot | undefined;
    try {
      if (req.key !== undefined && keyed !== undefined && req.kind === "write") {
        const wait = keyed.reserve(req.key);
        await run.wait("key", clock.now() + wait, req.name);
      }
      if (pausedUntil > clock.now()) await run.wait("service", pausedUntil, req.name);
      slot = await book(req, run, ticket);
      await concurrency.acquire(run.signal).catch((e: unknown) => {
        throw run.interrupted(req.name, e);
      });
      // Held back past the slot (a long queue, a stalled process): book again rather than send
      // a write the other processes already count as answered.
      while (slot !== undefined && booker !== undefined && clock.now() > slot.latest) {
        booker.giveBack(slot);
        slot = undefined;
        slot = await book(req, run).catch((error: unknown) => {
          concurrency.release();
          throw error;
        });
      }
    } catch (error) {
      if (slot !== undefined) booker?.giveBack(slot);
      done();
      throw error;
    }
    const booked = slot;
    return () => {
      concurrency.release();
      done();
      if (booked !== undefined) booker?.answered(booked);
    };
  };

  /** Sends once, bounded by the timeout and the run's signal. */
  const sendOnce = async <T>(req: GateRequest<T>, run: RunWaits): Promise<T> => {
    const controller = new AbortController();
    const unwatch = watchAbort(run.signal, () => {
      controller.abort(run.signal.reason);
    });
    const timeout = { fired: false };
    const timer = setTimeout(() => {
      timeout.fired = true;
      controller.abort(new Error("timeout"));
    }, timeoutMs);
    try {
      return await abortable(req.send(controller.signal), controller.signal);
    } catch (error) {
      if (run.signal.aborted) throw run.interrupted(req.name, error);
      if (timeout.fired) {
        throw new RemoteUnavailableError(
          `${label} did not answer ${req.name} within ${timeoutMs / 1000} s.`,
          { system, operation: req.name },
          {
            transient: true,
            hint: `Check that ${label} is up and reachable; raise the connection's timeoutMs if it is only slow.`,
          },
        );
      }
      throw error;
    } finally {
      clearTimeout(timer);
      unwatch();
    }
  };

  const request = async <T>(
    req: GateRequest<T>,
    run: RunWaits,
    fence: WriteFence | undefined,
  ): Promise<T> => {
    const started = clock.now();
    let refusals = 0;
    for (let attempt = 1; ; attempt++) {
      // A lost lease stops the run with its own reason, whatever else stopped.
      if (fence?.signal.aborted === true) throw fence.signal.reason as Error;
      if (req.kind === "write") fence?.check();
      if (run.signal.aborted) throw run.interrupted(req.name, run.signal.reason);
      const release = await admit(req, run);
      if (req.kind === "write" && fence !== undefined) {
        // The wait for the limits may have outlasted the lease: not one write without it.
        try {
          fence.check();
        } catch (error) {
          release();
          throw error;
        }
      }
      const sentAt = Date.now();
      let failure: unknown;
      try {
        const value = await sendOnce(req, run);
        answered(req, statusOf(value), sentAt, run);
        // The service asks for a pause although it answered (an empty token bucket).
        const hold = req.holdMs?.() ?? 0;
        if (hold > 0) pausedUntil = Math.max(pausedUntil, clock.now() + hold);
        return value;
      } catch (error) {
        failure = error;
        const status = error instanceof SyncError ? error.details.status : undefined;
        answered(req, typeof status === "number" ? status : "error", sentAt, run);
      } finally {
        release();
      }
      if (stopped(run)) throw run.interrupted(req.name, failure);
      let delay: number | undefined;
      if (failure instanceof RateLimitError) {
        // Refused, so safe to repeat even when not idempotent: wait as the service asks.
        pausedUntil = Math.max(pausedUntil, clock.now() + Math.max(0, failure.retryAfterMs));
        delay = ++refusals < policy.maxAttempts ? Math.max(0, failure.retryAfterMs) : undefined;
      } else {
        delay = retryDelay({
          attempt: attempt - refusals,
          error: failure,
          policy,
          idempotent: req.idempotent,
          elapsedMs: clock.now() - started,
          ...(o.random === undefined ? {} : { random: o.random }),
        });
      }
      if (delay === undefined) throw failure;
      await retryTurn(run, req.name, attempt, delay, failure);
    }
  };

  /** One retry: counted, told as the `retry` event, then its backoff (a refusal's wait is the pause). */
  const retryTurn = async (
    run: RunWaits,
    name: string,
    attempt: number,
    delay: number,
    failure: unknown,
  ): Promise<void> => {
    run.counters.retries++;
    run.emit({
      type: "retry",
      system,
      name,
      attempt,
      delayMs: delay,
      code: failure instanceof SyncError ? failure.code : "unknown",
      reason: failure instanceof Error ? failure.message : String(failure),
    });
    if (!(failure instanceof RateLimitError)) await run.wait("retry", clock.now() + delay, name);
  };

  /**
   * Retry turns of an ensure: after an ambiguous failure (timeout, reset, 5xx) the unit may run
   * again — it looks before it creates — within the policy's attempts and time, as a request safe
   * to repeat would. Anything else (a refusal the gate already waited out, auth, payload…) ends it.
   */
  const retries = (run: RunWaits, name: string): RetryTurns => {
    const started = clock.now();
    let attempt = 0;
    return {
      next: async (failure) => {
        attempt++;
        if (stopped(run)) throw run.interrupted(name, failure);
        if (!isAmbiguous(failure)) return false;
        const delay = retryDelay({
          attempt,
          error: failure,
          policy,
          idempotent: true,
          elapsedMs: clock.now() - started,
          ...(o.random === undefined ? {} : { random: o.random }),
        });
        if (delay === undefined) return false;
        await retryTurn(run, name, attempt, delay, failure);
        return true;
      },
    };
  };

  /** Counts one attempt (the run's API use) and tells the run about it. */
  const answered = (
    req: GateRequest<unknown>,
    status: number | "error",
    sentAt: number,
    run: RunWaits,
  ): void => {
    const c = run.counters;
    const count = (operation: string | undefined): void => {
      if (operation !== undefined) c.byOperation[operation] = (c.byOperation[operation] ?? 0) + 1;
    };
    if (req.readFirst !== undefined) {
      c.reads++;
      count(req.readFirst.operation);
      if (req.readFirst.wrote()) {
        c.writes++;
        count(req.operation);
      }
    } else {
      if (status === 304) c.notModified++;
      else if (req.kind === "write") c.writes++;
      else c.reads++;
      count(req.operation);
    }
    const e: GateEvent = {
      type: "request",
      system,
      kind: req.kind,
      name: req.name,
      status,
      durationMs: Date.now() - sentAt,
    };
    run.emit(e);
  };

  return {
    system,
    limits,
    forRun(r = {}) {
      const own = r.signal ?? new AbortController().signal;
      // Not `AbortSignal.any`: on Node 20 it leaves an entry on `own` for as long as `own` lives,
      // one per run on a `serve` process's stop signal (abort-watch.ts).
      const linked = r.fence === undefined ? undefined : linkedSignals(own, r.fence.signal);
      const signal = linked?.signal ?? own;
      // Each request waiting for its turn listens to it.
      if (signal !== own) setMaxListeners(0, signal);
      const run = createRunWaits({
        system,
        label,
        clock,
        signal,
        maxWaitMs: r.maxWaitMs ?? DEFAULT_WAIT_BUDGET_MS,
        onEvent: r.onEvent,
      });
      return {
        system,
        request: (req) => request(req, run, r.fence),
        counters: () => ({ ...run.counters, byOperation: { ...run.counters.byOperation } }),
        retries: (name) => retries(run, name),
        release: () => linked?.release(),
      };
    },
  };
}
