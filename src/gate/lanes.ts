import PQueue from "p-queue";
import { ConfigError } from "../core/errors.js";
import type { SystemName } from "../core/model.js";
import type { GateCounters } from "./gate-waits.js";
import type { RetryPolicy } from "./retry.js";
import { DEFAULT_RETRY_POLICY } from "./retry.js";
import type { Lane } from "./runner.js";
import { createRunner } from "./runner.js";
import { realClock, type Clock } from "./virtual-clock.js";

/**
 * How many item operations of a system run at once. Request limits (windows, `Retry-After`,
 * request retries) are not the lanes' business: they live in the request gate (`gate.ts`).
 */
export interface LaneLimits {
  /** Operations in flight at once. @default 1 */
  readonly concurrency?: number | undefined;
}

/** One item operation for a lane (a create, an update, a read made of many requests). */
export interface LaneOp<T> {
  /** For events and errors, e.g. `issues.create #12`. */
  readonly name: string;
  readonly kind: "read" | "write";
  /** Safe to repeat after an ambiguous failure (GET, PUT of a full document, DELETE). */
  readonly idempotent: boolean;
  /** The operation; `signal` aborts it when the run is stopped. */
  readonly run: (signal: AbortSignal) => Promise<T>;
  /**
   * For a non-idempotent operation (a create): after an ambiguous failure (timeout, reset, 5xx),
   * looks for the effect (by marker). A defined result is taken as the operation's result;
   * `undefined` means it did not happen, so the operation is run again.
   */
  readonly recover?: (() => Promise<T | undefined>) | undefined;
}

/** What the lanes report: a create run again after its effect was not found. */
export interface QueueEvent {
  readonly type: "retry";
  readonly system: SystemName;
  readonly attempt: number;
  readonly delayMs: number;
  readonly code: string;
  readonly operation: string;
  /** Why: the failed attempt's error message. */
  readonly reason: string;
}

/** Calls made and time lost, per system (the gate's counters, plus the lanes' own retries). */
type LaneCounters = GateCounters;

/** Options of `createLanes`. */
export interface LanesOptions {
  readonly limits: Partial<Record<SystemName, LaneLimits>>;
  /** The run's request gates: their counters are the run's API use. */
  readonly gates?: Partial<Record<SystemName, { counters(): GateCounters }>> | undefined;
  /** @default DEFAULT_RETRY_POLICY */
  readonly policy?: RetryPolicy | undefined;
  readonly onEvent?: ((e: QueueEvent) => void) | undefined;
  /** Stops every lane: queued operations reject, running ones see the signal, no retry starts. */
  readonly signal?: AbortSignal | undefined;
  /** @default setTimeout-based */
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** @default Date.now */
  readonly now?: (() => number) | undefined;
  /** For the retry jitter. @default Math.random */
  readonly random?: (() => number) | undefined;
}

/** One queue of item operations per remote system. */
export interface Lanes {
  /** Runs `op` in `system`'s lane: queued by its concurrency, recovered after ambiguous creates. */
  run<T>(system: SystemName, op: LaneOp<T>): Promise<T>;
  /** Resolves when every lane has finished its running and queued operations. */
  drain(): Promise<void>;
  counters(): Record<string, LaneCounters>;
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

function createLane(system: SystemName, limits: LaneLimits): Lane {
  checkLimits(system, limits);
  return {
    system,
    queue: new PQueue({ concurrency: limits.concurrency ?? 1 }),
    retries: 0,
  };
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
 * inside an operation pass the system's request gate, which paces and retries them; a lane only
 * runs a create again once `recover` showed that an ambiguous failure created nothing.
 *
 * @example
 * const lanes = createLanes({ limits: { github: { concurrency: 4 } }, gates: { github: gate } });
 * const issue = await lanes.run("github", { name: "issues.create", kind: "write", idempotent: false,
 *   run: (signal) => tracker.create(draft, { signal }), recover: () => findByMarker(marker) });
 */
export function createLanes(o: LanesOptions): Lanes {
  const clock: Clock = { now: o.now ?? realClock.now, sleep: o.sleep ?? realClock.sleep };
  const signal = o.signal ?? new AbortController().signal;
  const policy = o.policy ?? DEFAULT_RETRY_POLICY;
  const lanes = new Map<SystemName, Lane>();
  for (const [system, limits] of Object.entries(o.limits) as [SystemName, LaneLimits][]) {
    lanes.set(system, createLane(system, limits));
  }
  const laneOf = (system: SystemName): Lane => {
    let lane = lanes.get(system);
    if (lane === undefined) {
      lane = createLane(system, {});
      lanes.set(system, lane);
    }
    return lane;
  };
  const runner = createRunner({ clock, signal, policy, random: o.random, emit: o.onEvent });
  return {
    run: <T>(system: SystemName, op: LaneOp<T>): Promise<T> => {
      const lane = laneOf(system);
      // The signal is checked when the operation's turn comes rather than handed to p-queue,
      // which would add one abort listener per queued operation (thousands in a migration).
      return lane.queue.add(() => {
        if (signal.aborted) throw runner.interrupted(lane, op, signal.reason);
        return runner.execute(lane, op);
      });
    },
    drain: async () => {
      await Promise.all([...lanes.values()].map((lane) => lane.queue.onIdle()));
    },
    counters: () => {
      const systems = new Set<SystemName>([
        ...lanes.keys(),
        ...(Object.keys(o.gates ?? {}) as SystemName[]),
      ]);
      return Object.fromEntries(
        [...systems].map((system) => {
          const use = o.gates?.[system]?.counters() ?? NO_USE;
          const own = lanes.get(system)?.retries ?? 0;
          return [system, { ...use, retries: use.retries + own }];
        }),
      );
    },
  };
}
