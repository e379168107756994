import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Pool } from "pg";
import {
  DEAD_WORKERS_LISTED_MS,
  HEARTBEAT_MS,
  jobLockedError,
  LEASE_TTL_MS,
  leaseLostError,
  vouchedMs,
  type JobLease,
  type WorkerRecord,
} from "../lease.js";
import type { LockHolder } from "../lock.js";
import { inTransaction } from "./pg-db.js";
import { processWorkerId } from "../../core/worker-id.js";

/** Lease timing; tests shorten it, the defaults are the documented ones. */
export interface LeaseTiming {
  readonly ttlMs: number;
  readonly heartbeatMs: number;
}

export const DEFAULT_TIMING: LeaseTiming = { ttlMs: LEASE_TTL_MS, heartbeatMs: HEARTBEAT_MS };

interface HolderRow {
  worker_id: string;
  expired: boolean;
  host: string | null;
  pid: number | null;
  acquired_at: Date;
}

/**
 * One process's membership of a PostgreSQL state: a `workers` row kept alive by a heartbeat, and
 * the job leases it holds. Lease times use the server's clock (`now()`), so workers on machines
 * with different clocks agree. Locally, a lease counts as held only until the last renewal that
 * the server confirmed plus the lease's life: past that (the database unreachable), its signal
 * aborts — the run must stop writing, because another worker may take the job over.
 */
export interface WorkerMembership {
  readonly id: string;
  claim(job: string, waitMs: number): Promise<JobLease>;
  /** Stops heart-beating at once (the process exits): the leases expire by themselves. */
  stop(): void;
  close(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Held {
  readonly controller: AbortController;
  /**
   * performance.now() when the last renewal the server confirmed was sent: the server extended
   * the lease to at least then + ttl by its clock, so here it is held until then + ttl.
   */
  confirmedAt: number;
  /** Released, or lost: either way this lease never touches the row again. */
  done: boolean;
}

export async function joinAsWorker(
  pool: Pool,
  location: string,
  timing: LeaseTiming = DEFAULT_TIMING,
): Promise<WorkerMembership> {
  const id = randomUUID();
  const ttl = timing.ttlMs;
  await pool.query("INSERT INTO workers (id, host, pid, worker_id) VALUES ($1, $2, $3, $4)", [
    ...[id, hostname(), process.pid, processWorkerId()],
  ]);
  // Rows of workers silent for a day are history: drop them and anything they still claim.
  await pool.query(
    `DELETE FROM workers WHERE heartbeat_at < now() - interval '1 day';
     DELETE FROM job_leases WHERE expires_at < now() - interval '1 day'`,
  );
  const held = new Map<string, Held>();
  const lose = (job: string, h: Held, why: string): void => {
    if (h.done) return;
    h.done = true;
    if (held.get(job) === h) held.delete(job);
    h.controller.abort(leaseLostError(job, why));
  };
  // Vouched for only while renewals succeed: given up well before the lease can expire on the
  // server, so no other worker can take the job while this one may still write.
  const vouched = vouchedMs(ttl);
  const silence = `the database confirmed no heartbeat for ${vouched} ms (the lease lives ${ttl} ms)`;
  const loseExpired = (): void => {
    const at = performance.now();
    for (const [job, h] of held) if (at - h.confirmedAt >= vouched) lose(job, h, silence);
  };
  let beating = false;
  const beat = async (): Promise<void> => {
    if (beating) return;
    beating = true;
    const sentAt = performance.now();
    try {
      // Only the leases this process still holds: one it gave up (lost while the database was
      // away) must expire on the server, even when the database comes back before it would.
      const { rows } = await pool.query<{ job: string }>(
        `WITH w AS (UPDATE workers SET heartbeat_at = now() WHERE id = $1)
         UPDATE job_leases SET expires_at = now() + $2 * interval '1 millisecond'
         WHERE worker_id = $1 AND expires_at > now() AND job = ANY($3::text[]) RETURNING job`,
        [id, ttl, [...held.keys()]],
      );
      const renewed = new Set(rows.map((r) => r.job));
      for (const [job, h] of held) {
        if (h.confirmedAt > sentAt) continue; // claimed while this beat was under way
        if (renewed.has(job)) h.confirmedAt = sentAt;
        else lose(job, h, "another worker took it over");
      }
    } catch {
      // Unreachable: each lease stays held here until `confirmedAt + vouched` (checked below).
    } finally {
      beating = false;
      loseExpired();
    }
  };
  const timer = setInterval(() => void beat(), Math.min(timing.heartbeatMs, ttl / 3));
  timer.unref();
  const watchdog = setInterval(loseExpired, Math.max(50, Math.min(500, ttl / 20)));
  watchdog.unref();

  const tryClaim = (job: string) =>
    inTransaction(pool, async (db) => {
      const { rows } = await db.query<HolderRow>(
        `SELECT l.worker_id, l.expires_at <= now() AS expired, w.host, w.pid, l.acquired_at
         FROM job_leases l LEFT JOIN workers w ON w.id = l.worker_id WHERE l.job = $1
         FOR UPDATE OF l`,
        [job],
      );
      const row = rows[0];
      if (row !== undefined && !row.expired) return { ok: false as const, holder: row };
      const sentAt = performance.now();
      const taken = await db.query(
        `INSERT INTO job_leases (job, worker_id, acquired_at, expires_at)
         VALUES ($1, $2, now(), now() + $3 * interval '1 millisecond')
         ON CONFLICT (job) DO UPDATE SET worker_id = excluded.worker_id,
           acquired_at = excluded.acquired_at, expires_at = excluded.expires_at
         WHERE job_leases.expires_at <= now()`,
        [job, id, ttl],
      );
      if (taken.rowCount === 0) return { ok: false as const, holder: undefined };
      // We hold the job: a run of it still marked running belongs to a worker that is gone.
      await db.query(
        "UPDATE runs SET outcome = 'interrupted', finished_at = $1 WHERE job = $2 AND outcome IS NULL",
        [new Date().toISOString(), job],
      );
      return { ok: true as const, sentAt };
    });

  return {
    id,
    async claim(job: string, waitMs: number): Promise<JobLease> {
      const started = Date.now();
      for (;;) {
        let attempt;
        try {
          attempt = await tryClaim(job);
        } catch (error) {
          // Two workers inserting the first lease of a job at once: the loser tries again.
          if ((error as { code?: string }).code !== "23505") throw error;
          attempt = { ok: false as const, holder: undefined };
        }
        if (attempt.ok) {
          const h: Held = {
            controller: new AbortController(),
            confirmedAt: attempt.sentAt,
            done: false,
          };
          held.set(job, h);
          return {
            job,
            signal: h.controller.signal,
            assertHeld: () => {
              loseExpired();
              if (h.controller.signal.aborted) throw h.controller.signal.reason;
              if (h.done) throw leaseLostError(job, "it was released");
            },
            release: async () => {
              if (h.done) return;
              h.done = true;
              if (held.get(job) === h) held.delete(job);
              await pool
                .query("DELETE FROM job_leases WHERE job = $1 AND worker_id = $2", [job, id])
                .catch(() => undefined); // unreachable: the lease expires by itself
            },
          };
        }
        const waited = Date.now() - started;
        if (waited >= waitMs) {
          const holder = attempt.holder;
          throw jobLockedError(
            location,
            job,
            holder?.pid == null || holder.host === null
              ? undefined
              : { pid: holder.pid, host: holder.host, since: holder.acquired_at.toISOString() },
            waited,
          );
        }
        await sleep(Math.min(Math.max(50, ttl / 20), waitMs - waited));
      }
    },
    stop(): void {
      clearInterval(timer);
      clearInterval(watchdog);
    },
    async close(): Promise<void> {
      clearInterval(timer);
      clearInterval(watchdog);
      for (const h of held.values()) h.done = true;
      held.clear();
      await pool
        .query(
          `WITH l AS (DELETE FROM job_leases WHERE worker_id = $1)
           DELETE FROM workers WHERE id = $1`,
          [id],
        )
        .catch(() => undefined);
    },
  };
}

/**
 * The workers heard from within `DEAD_WORKERS_LISTED_MS`, oldest first, with the jobs they hold:
 * `alive` while their last heartbeat is younger than the lease life (by the server's clock).
 */
export async function listWorkers(pool: Pool, ttlMs: number): Promise<WorkerRecord[]> {
  const { rows } = await pool.query<{
    id: string;
    worker_id: string | null;
    host: string;
    pid: number;
    started_at: Date;
    heartbeat_at: Date;
    silent_ms: number;
    alive: boolean;
    jobs: string[] | null;
  }>(
    `SELECT w.id, w.worker_id, w.host, w.pid, w.started_at, w.heartbeat_at,
       greatest(0, floor(extract(epoch FROM now() - w.heartbeat_at) * 1000))::float8 AS silent_ms,
       w.heartbeat_at > now() - $1 * interval '1 millisecond' AS alive,
       array_agg(l.job ORDER BY l.job) FILTER (WHERE l.job IS NOT NULL) AS jobs
     FROM workers w LEFT JOIN job_leases l ON l.worker_id = w.id AND l.expires_at > now()
     WHERE w.heartbeat_at > now() - $2 * interval '1 millisecond'
     GROUP BY w.id ORDER BY w.started_at, w.id`,
    [ttlMs, DEAD_WORKERS_LISTED_MS],
  );
  return rows.map((r) => ({
    id: r.id,
    ...(r.worker_id === null ? {} : { workerId: r.worker_id }),
    host: r.host,
    pid: r.pid,
    startedAt: r.started_at.toISOString(),
    heartbeatAt: r.heartbeat_at.toISOString(),
    silentMs: r.silent_ms,
    alive: r.alive,
    jobs: r.alive ? (r.jobs ?? []) : [],
  }));
}

/** The worker holding the oldest live lease (a run going on), if any. */
export async function leaseHolder(pool: Pool): Promise<LockHolder | undefined> {
  const { rows } = await pool.query<{ host: string; pid: number; acquired_at: Date }>(
    `SELECT w.host, w.pid, l.acquired_at FROM job_leases l JOIN workers w ON w.id = l.worker_id
     WHERE l.expires_at > now() ORDER BY l.acquired_at LIMIT 1`,
  );
  const r = rows[0];
  return r === undefined
    ? undefined
    : {
        pid: r.pid,
        host: r.host,
        processStart: undefined,
        acquiredAt: r.acquired_at.toISOString(),
      };
}
