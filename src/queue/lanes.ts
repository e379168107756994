import PQueue from "p-queue";
import { ConfigError } from "../core/errors.js";
import type { SystemName } from "../core/model.js";
import type { RemoteReadRunner } from "../core/remote-read.js";
import { withRemoteReads, withoutRemoteReads } from "../core/remote-read.js";
import type { RateWindow } from "./pacer.js";
import { createPacer } from "./pacer.js";
import type { RetryPolicy } from "./retry.js";
import { DEFAULT_RETRY_POLICY } from "./retry.js";
import type { Lane } from "./runner.js";
import { createRunner } from "./runner.js";
import type { Clock } from "./virtual-clock.js";

/** A lane's caps, from the config's `limits` block of a system. Absent = no cap. */
export interface LaneLimits {
  /** Calls in flight at once. @default 1 */
  readonly concurrency?: number | undefined;
  /** Write starts in any 60 s (GitHub: 80 content-creating requests per minute). */
  readonly writesPerMinute?: number | undefined;
  /** Write starts in any hour (GitHub: 500 per hour). */
  readonly writesPerHour?: number | undefined;
  /** Read starts in any second. */
  readonly readsPerSecond?: number | undefined;
  /**
   * What a read's pacing counts: each lane call (default), or each remote request made within a
   * read (tinyPM: one scan is thousands of GETs, each paced by `readsPerSecond`).
   */
  readonly pace?: "call" | "request" | undefined;
}

/** One remote call for a lane. */
export interface LaneOp<T> {
  /** For events and errors, e.g. `issues.create #12`. */
  readonly name: string;
  readonly kind: "read" | "write";
  /** Safe to repeat after an ambiguous failure (GET, PUT of a full document, DELETE). */
  readonly idempotent: boolean;
  /** The call; `signal` aborts it when the run is stopped. */
  readonly run: (signal: AbortSignal) => Promise<T>;
  /**
   * For a non-idempotent call (a create): after an ambiguous failure (timeout, reset, 5xx), looks
   * for the effect (by marker). A defined result is taken as the call's result; `undefined`
   * means it did not happen, so the call is retried.
   */
  readonly recover?: (() => Promise<T | undefined>) | undefined;
}

/** What the lanes report; rate-limit waits and retries are never silent. */
export type QueueEvent =
  | {
      readonly type: "rate_limited";
      readonly system: SystemName;
      readonly waitMs: number;
      readonly operation: string;
    }
  | {
      readonly type: "retry";
      readonly system: SystemName;
      readonly attempt: number;
      readonly delayMs: number;
      readonly code: string;
      readonly operation: string;
      /** Why: the failed attempt's error message. */
      readonly reason: string;
    };

/** Calls made and time lost, per system. */
export interface LaneCounters {
  reads: number;
  writes: number;
  retries: number;
  rateLimitWaits: number;
  /** Total ms the lane was paused by rate limits. */
  waitedMs: number;
}

/** Options of `createLanes`. */
export interface LanesOptions {
  readonly limits: Partial<Record<SystemName, LaneLimits>>;
  /** @default DEFAULT_RETRY_POLICY */
  readonly policy?: RetryPolicy | undefined;
  readonly onEvent?: ((e: QueueEvent) => void) | undefined;
  /** Stops every lane: queued calls reject, running ones see the signal, no retry starts. */
  readonly signal?: AbortSignal | undefined;
  /** @default setTimeout-based */
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** @default Date.now */
  readonly now?: (() => number) | undefined;
  /** For the retry jitter. @default Math.random */
  readonly random?: (() => number) | undefined;
}

/** One queue per remote system; the only layer that paces and retries remote calls. */
export interface Lanes {
  /** Runs `op` in `system`'s lane: paced, retried by the policy, counted. */
  run<T>(system: SystemName, op: LaneOp<T>): Promise<T>;
  /** Pauses a lane, e.g. when a response says the quota is spent until a reset time. */
  pause(system: SystemName, ms: number, operation: string): void;
  /** Resolves when every lane has finished its running and queued calls. */
  drain(): Promise<void>;
  counters(): Record<string, LaneCounters>;
}

function checkLimits(system: string, limits: LaneLimits): void {
  for (const [key, value] of Object.entries(limits)) {
    if (value === undefined || key === "pace") continue;
    if (
      typeof value !== "number" ||
      !(value > 0) ||
      (key === "concurrency" && !Number.isInteger(value))
    ) {
      throw new ConfigError(
        `Lane limits of ${system}: ${key} must be a positive number (got ${String(value)}).`,
        {
          hint: `Fix limits.${key} of ${system} in the config.`,
          issues: [{ path: [system, "limits", key], message: "must be a positive number" }],
        },
      );
    }
  }
}

function windows(perWindow: readonly [number | undefined, number][]): RateWindow[] {
  return perWindow.flatMap(([limit, windowMs]) =>
    limit === undefined ? [] : [{ limit, windowMs }],
  );
}

function createLane(system: SystemName, limits: LaneLimits): Lane {
  checkLimits(system, limits);
  return {
    system,
    queue: new PQueue({ concurrency: limits.concurrency ?? 1 }),
    pacers: {
      read: createPacer(windows([[limits.readsPerSecond, 1_000]])),
      write: createPacer(
        windows([
          [limits.writesPerMinute, 60_000],
          [limits.writesPerHour, 3_600_000],
        ]),
      ),
    },
    pacePerRequest: limits.pace === "request",
    pausedUntil: 0,
    counters: { reads: 0, writes: 0, retries: 0, rateLimitWaits: 0, waitedMs: 0 },
  };
}

function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    function onAbort(): void {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Creates the lanes: one p-queue per system with its concurrency, paced per call kind by
 * sliding windows, paused as a whole when the remote rate-limits, retrying by `retryDelay`.
 *
 * @example
 * const lanes = createLanes({ limits: { github: { concurrency: 1, writesPerMinute: 80, writesPerHour: 500 } },
 *   onEvent: (e) => log.warn(e) });
 * const issue = await lanes.run("github", { name: "issues.create", kind: "write", idempotent: false,
 *   run: (signal) => tracker.create(draft, { signal }), recover: () => findByMarker(marker) });
 */
export function createLanes(o: LanesOptions): Lanes {
  const clock: Clock = { now: o.now ?? Date.now, sleep: o.sleep ?? realSleep };
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
      // The signal is checked when the call's turn comes rather than handed to p-queue, which
      // would add one abort listener per queued call (thousands in a migration).
      // Within a read, each remote request is retried on its own (`remoteRead`): a scan of
      // thousands of requests is not started over for one failed page. A write stays one unit
      // (its fresh GET and its PUT are retried together), whichever call p-queue started it from.
      const perRequest: RemoteReadRunner = (name, read) => runner.executeRequest(lane, name, read);
      const scoped: LaneOp<T> = {
        ...op,
        run: (s) =>
          op.kind === "read"
            ? withRemoteReads(perRequest, () => op.run(s))
            : withoutRemoteReads(() => op.run(s)),
      };
      return lane.queue.add(() => {
        if (signal.aborted) throw runner.interrupted(lane, op, signal.reason);
        return runner.execute(lane, scoped);
      });
    },
    pause: (system, ms, operation) => {
      runner.pause(laneOf(system), ms, operation);
    },
    drain: async () => {
      await Promise.all([...lanes.values()].map((lane) => lane.queue.onIdle()));
    },
    counters: () =>
      Object.fromEntries([...lanes].map(([system, lane]) => [system, { ...lane.counters }])),
  };
}
