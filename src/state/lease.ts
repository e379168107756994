import { StateError } from "../core/errors.js";

/** How long a lease lives without a heartbeat: a dead worker's jobs are free after this. */
export const LEASE_TTL_MS = 30_000;

/** How often a live worker renews its leases (a third of their life: two beats may fail). */
export const HEARTBEAT_MS = 10_000;

/**
 * How long after its last confirmed renewal a holder still vouches for a lease of life `ttlMs`:
 * four fifths of it (24 s of 30). The rest is the margin in which the holder has already stopped
 * writing (its in-flight requests aborted) while no other worker can take the job yet, so two
 * workers never write for one job at the same time.
 */
export function vouchedMs(ttlMs: number): number {
  return Math.floor(ttlMs * 0.8);
}

/**
 * How long a dead worker stays listed by `workers()` (shown as dead) before it is left out: long
 * enough to notice a crash, short enough that the list is about now.
 */
export const DEAD_WORKERS_LISTED_MS = 60 * 60_000;

/** A process working on a state, as listed by `workers()` (`status`, the `serve` dashboard). */
export interface WorkerRecord {
  /** This membership of the state (PostgreSQL: one per open store; a process may have several). */
  readonly id: string;
  /** The process's worker id (`processWorkerId`), as the runs it journals name it, if known. */
  readonly workerId?: string | undefined;
  readonly host: string;
  readonly pid: number;
  readonly startedAt: string;
  /** The last heartbeat (ISO); a worker silent for longer than the lease TTL is dead. */
  readonly heartbeatAt: string;
  /** Milliseconds since that heartbeat, by the state's clock (PostgreSQL's `now()`). */
  readonly silentMs: number;
  /** Heard from within the lease life; a dead worker holds no job and is listed for a while. */
  readonly alive: boolean;
  /** The jobs it holds now. */
  readonly jobs: readonly string[];
}

/**
 * Why a claim took a job from its holder: its lease `expired` (no heartbeat reached the database
 * for the lease's life), its process is gone from this host (`holder_dead`), or the database saw
 * its connection close (`session_closed`).
 */
export type TakeOverReason = "expired" | "holder_dead" | "session_closed";

/** The hold of one process on one job. */
export interface JobLease {
  readonly job: string;
  /** The holder this claim took the job from, and why (PostgreSQL; absent when it was free). */
  readonly takenOver?:
    | {
        readonly reason: TakeOverReason;
        readonly holder?: { readonly pid: number; readonly host: string; readonly since: string };
      }
    | undefined;
  /**
   * Aborted when the lease may have been lost (the database was unreachable for longer than the
   * lease lives, or another worker took it over): stop writing to any target, finish nothing.
   */
  readonly signal: AbortSignal;
  /** Throws `StateError("state_locked")` unless the lease is still held for sure. */
  assertHeld(): void;
  /** Gives the job back. Idempotent. */
  release(): Promise<void>;
}

/** The error of a job held by a live process. */
export function jobLockedError(
  location: string,
  job: string,
  holder: { pid: number; host: string; since: string } | undefined,
  waitedMs: number,
): StateError {
  const who =
    holder === undefined
      ? "another process"
      : `process ${holder.pid} on ${holder.host} (since ${holder.since})`;
  return new StateError(
    "state_locked",
    `Job ${job} of state ${location} is being run by ${who}; waited ${waitedMs} ms.`,
    {
      hint:
        "Let that run finish, or set `state.waitForLockMs` in the config to wait for it. A job " +
        "held by a process that died is free again at once (PostgreSQL: as soon as the database " +
        `sees its connection close), at the latest ${LEASE_TTL_MS / 1000} s after its last heartbeat.`,
      details: { location, job, pid: holder?.pid, host: holder?.host, since: holder?.since },
    },
  );
}

/** The error of a lease that can no longer be vouched for. */
export function leaseLostError(job: string, why: string): StateError {
  return new StateError("state_unavailable", `The lease of job ${job} was lost: ${why}.`, {
    hint:
      "Another worker may run the job now; this run stopped writing. Check the database " +
      "connection; the next run resumes from the state.",
    details: { job },
  });
}
