import { InterruptedError, LimitWaitError } from "../core/errors.js";
import type { SystemName } from "../core/model.js";
import type { GateEvent, WaitReason } from "../core/request-gate.js";
import { linkedSignals } from "../core/abort-watch.js";
import type { Clock } from "./virtual-clock.js";
import { formatDuration } from "../core/duration.js";

/** Waits shorter than this are pacing, not waits: no event (GitHub's 750 ms write spacing). */
const VISIBLE_WAIT_MS = 1_000;

/**
 * The requests, retries and waits of one run on one gate: the run's one count of API use (its
 * report's `apiCalls`, the benchmarks' figures), kept from the requests as they are answered.
 */
export interface GateCounters {
  /** Requests sent (reads and searches), each attempt counted; conditional reads answered 304 apart. */
  reads: number;
  writes: number;
  /** Conditional reads answered 304 Not Modified (free on GitHub). */
  notModified: number;
  /** Attempts per operation, for the requests that name theirs (`issue.bulkCreate`). */
  byOperation: Record<string, number>;
  retries: number;
  /** Waits of a second or more for a limit (a window or the service's own word). */
  rateLimitWaits: number;
  /** Time the run's requests spent in those waits, ms. */
  waitedMs: number;
}

/** One run's view of waiting: its signal, its budget and its events. */
export interface RunWaits {
  readonly signal: AbortSignal;
  readonly counters: GateCounters;
  readonly emit: (e: GateEvent) => void;
  /**
   * Waits until `until` (clock ms) for `reason`: announced when it is long enough to be seen
   * (one `wait_start`/`wait_end` pair however many requests wait together), cut short by the
   * run's signal (InterruptedError), refused with LimitWaitError past the run's wait budget.
   */
  wait(reason: WaitReason, until: number, name: string): Promise<void>;
  /** Throws LimitWaitError when a wait until `until` would be past the budget. */
  checkBudget(reason: WaitReason, until: number, name: string): void;
  /** An InterruptedError for `name` (the run was stopped). */
  interrupted(name: string, cause?: unknown): InterruptedError;
}

const WHY: Record<WaitReason, string> = {
  second: "its per-second limit",
  minute: "its per-minute limit",
  hour: "its hourly limit",
  key: "a per-item limit",
  service: "the service's own rate limit (Retry-After / reset)",
  retry: "a retry's backoff",
};

/** The tracker of one run's waits on `system`'s gate. */
export function createRunWaits(o: {
  system: SystemName;
  label: string;
  clock: Clock;
  signal: AbortSignal;
  maxWaitMs: number;
  onEvent: ((e: GateEvent) => void) | undefined;
}): RunWaits {
  const { clock, system } = o;
  const counters: GateCounters = {
    reads: 0,
    writes: 0,
    notModified: 0,
    byOperation: {},
    retries: 0,
    rateLimitWaits: 0,
    waitedMs: 0,
  };
  const emit = (e: GateEvent): void => o.onEvent?.(e);
  let waiting = 0;
  let startedAt = 0;
  const interrupted = (name: string, cause?: unknown): InterruptedError =>
    cause instanceof InterruptedError
      ? cause
      : new InterruptedError(`Stopped before ${name} on ${o.label} finished.`, {
          hint: "Run the command again: it resumes where it stopped.",
          cause,
        });
  const checkBudget = (reason: WaitReason, until: number, name: string): void => {
    const ms = until - clock.now();
    if (reason === "retry" || ms <= o.maxWaitMs) return;
    const at = new Date(until).toISOString().replace(/\.\d+Z$/, "Z");
    throw new LimitWaitError(
      `${o.label} is held back by ${WHY[reason]} until ${at} (${formatDuration(ms)}), longer than the run's wait budget of ${formatDuration(o.maxWaitMs)}; stopped before ${name}.`,
      {
        system,
        resumeAt: until,
        waitMs: ms,
        reason,
        hint: `Run again after ${at}: it resumes where it stopped. Or pass --wait-for-limits to wait instead.`,
      },
    );
  };
  return {
    signal: o.signal,
    counters,
    emit,
    interrupted,
    checkBudget,
    async wait(reason, until, name) {
      const ms = until - clock.now();
      if (ms <= 0) return;
      checkBudget(reason, until, name);
      const visible = ms >= VISIBLE_WAIT_MS;
      if (visible && waiting++ === 0) {
        startedAt = clock.now();
        if (reason !== "retry") counters.rateLimitWaits++;
        emit({ type: "wait_start", system, reason, until, name });
      }
      // The clock's sleep listens to the signal it is given: a linked one per wait, so the run's
      // signal keeps one listener however many requests wait at once.
      const linked = linkedSignals(o.signal);
      try {
        await clock.sleep(ms, linked.signal);
      } catch (error) {
        throw interrupted(name, error);
      } finally {
        linked.release();
        if (visible && --waiting === 0) {
          const waitedMs = clock.now() - startedAt;
          counters.waitedMs += waitedMs;
          emit({ type: "wait_end", system, waitedMs });
        }
      }
    },
  };
}
