import PQueue from "p-queue";
import { ConfigError, InterruptedError } from "../core/errors.js";
import type { SystemName } from "../core/model.js";
import { createGate, type RetryTurns } from "./gate.js";
import type { GateCounters } from "./gate-waits.js";
import type { RetryPolicy } from "./retry.js";
import { realClock, type Clock } from "./virtual-clock.js";

/**
 * How many item operations of a system run at once. Request limits (windows, `Retry-After`,
 * request retries) are not the lanes' business: they live in the request gate (`gate.ts`).
 */
export interface LaneLimits {
  /** Operations in flight at once. @default 1 */
  readonly concurrency?: number | undefined;
}

/**
 * One item operation for a lane (a create, an update, a read made of many requests). It runs
 * once: its requests are retried by the request gate, and a create that must not be sent twice
 * is an explicit ensure in the apply step (`sync/apply/ensure.ts`), never a rerun of the unit.
 */
export interface LaneOp<T> {
  /** For events and errors, e.g. `issues.create #12`. */
  readonly name: string;
  readonly kind: "read" | "write";
  /** The operation; `signal` aborts it when the run is stopped. */
  readonly run: (signal: AbortSignal) => Promise<T>;
}

/** A run's request gate as the lanes see it: its counters and its retry turns. */
export interface LaneGate {
  counters(): GateCounters;
  retries(name: string): RetryTurns;
}

/** Options of `createLanes`. */
export interface LanesOptions {
  readonly limits: Partial<Record<SystemName, LaneLimits>>;
  /** The run's request gates: their counters are the run's API use, their policy its retries. */
  readonly gates?: Partial<Record<SystemName, LaneGate>> | undefined;
  /**
   * For a system without a gate (tests, benchmarks): the retry policy of an unlimited gate made
   * for its retry turns. @default DEFAULT_RETRY_POLICY
   */
  readonly policy?: RetryPolicy | undefined;
  /** Stops every lane: queued operations reject, running ones see the signal. */
  readonly signal?: AbortSignal | undefined;
  /** For a system without a gate: that gate's clock. @default setTimeout-based */
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** @default Date.now */
  readonly now?: (() => number) | undefined;
  /** For the retry jitter. @default Math.random */
  readonly random?: (() => number) | undefined;
}

/** One queue of item operations per remote system. */
export interface Lanes {
  /** Runs `op` in `system`'s lane, once, when its concurrency allows. */
  run<T>(system: SystemName, op: LaneOp<T>): Promise<T>;
  /** The retry turns of an ensure on `system`, under its gate's policy (one retry loop). */
  retries(system: SystemName, name: string): RetryTurns;
  /** Resolves when every lane has finished its running and queued operations. */
  drain(): Promise<void>;
  counters(): Record<string, GateCounters>;
}

function checkLimits(system: string, limits: LaneLimits): void {
  const value = limits.concurrency;
  if (value === undefined || (Number.isInteger(value) && value > 0)) return;
  throw new ConfigError(
    `Lane limits of ${system}: concurrency must be a positive whole number (got ${String(value)}).`,
    {
      hint: `Fix limits.concurrency of ${system} in the config.`,
      issues: [{ path: [system, "limits", "concurrency"], message: "must be a positive number" }],
    },
  );
}

function createQueue(system: SystemName, limits: LaneLimits): PQueue {
  checkLimits(system, limits);
  return new PQueue({ concurrency: limits.concurrency ?? 1 });
}

const NO_USE: GateCounters = {
  reads: 0,
  writes: 0,
  notModified: 0,
  byOperation: {},
  retries: 0,
  rateLimitWaits: 0,
  waitedMs: 0,
};

/**
 * Creates the lanes: one p-queue of item operations per system, with its concurrency. Requests
 * inside an operation pass the system's request gate, which paces and retries them; the lanes
 * repeat nothing.
 *
 * @example
 * const lanes = createLanes({ limits: { github: { concurrency: 4 } }, gates: { github: gate } });
 * const issue = await lanes.run("github", { name: "issues.create", kind: "write",
 *   run: (signal) => tracker.create(draft, { signal }) });
 */
export function createLanes(o: LanesOptions): Lanes {
  const signal = o.signal ?? new AbortController().signal;
  const queues = new Map<SystemName, PQueue>();
  for (const [system, limits] of Object.entries(o.limits) as [SystemName, LaneLimits][]) {
    queues.set(system, createQueue(system, limits));
  }
  const queueOf = (system: SystemName): PQueue => {
    let queue = queues.get(system);
    if (queue === undefined) {
      queue = createQueue(system, {});
      queues.set(system, queue);
    }
    return queue;
  };
  // A system run without a gate still has the gate's retry turns: an unlimited one's.
  const own = new Map<SystemName, LaneGate>();
  const gateOf = (system: SystemName): LaneGate => {
    const given = o.gates?.[system];
    if (given !== undefined) return given;
    let made = own.get(system);
    if (made === undefined) {
      const clock: Clock = { now: o.now ?? realClock.now, sleep: o.sleep ?? realClock.sleep };
      made = createGate({ system, limits: {}, policy: o.policy, clock, random: o.random }).forRun({
        signal,
      });
      own.set(system, made);
    }
    return made;
  };
  return {
    run: <T>(system: SystemName, op: LaneOp<T>): Promise<T> =>
      // The signal is checked when the operation's turn comes rather than handed to p-queue,
      // which would add one abort listener per queued operation (thousands in a migration).
      queueOf(system).add(() => {
        if (signal.aborted) throw interrupted(system, op, signal.reason);
        return op.run(signal);
      }),
    retries: (system, name) => gateOf(system).retries(name),
    drain: async () => {
      await Promise.all([...queues.values()].map((queue) => queue.onIdle()));
    },
    counters: () => {
      const systems = new Set<SystemName>([
        ...queues.keys(),
        ...(Object.keys(o.gates ?? {}) as SystemName[]),
      ]);
      return Object.fromEntries(
        [...systems].map((system) => {
          // A made gate counts only its retry turns (its requests never pass it).
          const use = o.gates?.[system]?.counters() ?? own.get(system)?.counters() ?? NO_USE;
          return [system, use];
        }),
      );
    },
  };
}

function interrupted(system: SystemName, op: LaneOp<unknown>, cause: unknown): InterruptedError {
  return cause instanceof InterruptedError
    ? cause
    : new InterruptedError(`Stopped before ${op.name} on ${system} finished.`, {
        hint: "Run the command again: it resumes where it stopped.",
        cause,
      });
}
