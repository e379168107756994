import { RateLimitError, RemoteUnavailableError } from "../core/errors.js";
import { formatDuration as duration } from "../core/duration.js";
import { clockTime, systemName } from "./wait-words.js";

/** How the watcher backs off from a system that is down, and how often it says so. */
export interface OutagePolicy {
  /** The first retry's backoff ceiling, doubled per failed try. */
  readonly baseMs: number;
  /** The cap of the backoff. */
  readonly capMs: number;
  /** How often a `still down` line is logged while a system stays down. */
  readonly stillDownEveryMs: number;
  /** [0, 1): the jitter. */
  readonly random: () => number;
}

export const DEFAULT_OUTAGE_POLICY: OutagePolicy = {
  baseMs: 5_000,
  capMs: 5 * 60_000,
  stillDownEveryMs: 10 * 60_000,
  random: Math.random,
};

/**
 * The wait before try `failures + 1` of a job whose system is down: a bounded exponential
 * (`base × 2^(failures-1)`, at most `cap`) with jitter (between half and all of it), so that
 * several watchers do not come back in step.
 */
export function backoffMs(failures: number, policy: OutagePolicy): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling * (0.5 + policy.random() * 0.5));
}

/** An error that a later try can outlive: the system is unreachable or asks to wait. */
export function isOutage(error: unknown): error is RemoteUnavailableError | RateLimitError {
  return error instanceof RemoteUnavailableError || error instanceof RateLimitError;
}

interface Down {
  readonly since: number;
  lastSaid: number;
}

/**
 * Which systems are down and since when; turns each change into at most one line for people:
 * `down`, `still down` at a slow cadence, `back`.
 */
export function createOutageTracker(policy: OutagePolicy) {
  const down = new Map<string, Down>();
  return {
    /** A try failed because `system` is down; the line to log, if one is due. */
    failed(system: string, reason: string, now: number, nextTry: number): string | undefined {
      const name = systemName(system);
      const next = `next try ${clockTime(nextTry, now)} (in ${duration(nextTry - now)})`;
      const known = down.get(system);
      if (known === undefined) {
        down.set(system, { since: now, lastSaid: now });
        return `${name} is down since ${clockTime(now, now)}: ${reason}; ${next}`;
      }
      if (now - known.lastSaid < policy.stillDownEveryMs) return undefined;
      known.lastSaid = now;
      return `${name} still down since ${clockTime(known.since, known.since)} (${duration(now - known.since)}); ${next}`;
    },
    /** A try reached `system`; the line to log when it was down. */
    reached(system: string, now: number): string | undefined {
      const known = down.get(system);
      if (known === undefined) return undefined;
      down.delete(system);
      return `${systemName(system)} is back after ${duration(now - known.since)} (down since ${clockTime(known.since, known.since)})`;
    },
    isDown: (system: string): boolean => down.has(system),
  };
}
