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
  type TakeOverReason,
  type WorkerRecord,
} from "../lease.js";
import { isHolderAlive, processStart, type LockHolder } from "../lock.js";
import type { LivenessSession } from "./pg-session.js";
import { inTransaction } from "./pg-db.js";
import { processWorkerId } from "../../core/worker-id.js";
import { sleep } from "../../core/sleep.js";

/** The clocks of the leases: tests drive them; by default the server's and a monotonic one. */
export interface LeaseClock {
  /**
   * The time lease rows are written with and compared against. Undefined: the database's own
   * `now()`, so workers on machines with different clocks agree. Every comparison of lease times
   * uses this one clock on both sides.
   */
  readonly db?: (() => Date) | undefined;
  /**
   * Monotonic milliseconds of this process: how long since the database last confirmed a
   * renewal (the holder's own vouching, never compared with a database time).
   */
  readonly local: () => number;
}

/** Lease timing; tests shorten it, the defaults are the documented ones. */
export interface LeaseTiming {
  readonly ttlMs: number;
  readonly heartbeatMs: number;
  /**
   * How long a worker that took over a job from a holder whose database session ended waits
   * before it writes: the time the holder needs to hear that its session ended (the server tells
   * it) and stop. @default 1000
   */
  readonly sessionGraceMs?: number | undefined;
  readonly clock?: LeaseClock | undefined;
}

export const DEFAULT_TIMING: LeaseTiming = { ttlMs: LEASE_TTL_MS, heartbeatMs: HEARTBEAT_MS };

/** Default of `LeaseTiming.sessionGraceMs`. */
export const SESSION_GRACE_MS = 1000;

const SYSTEM_CLOCK: LeaseClock = { local: () => performance.now() };

interface HolderRow {
  worker_id: string;
  expired: boolean;
  /** The holder's session lock is free: its connection to the database is closed. */
  session_gone: boolean;
  host: string | null;
  pid: number | null;
  process_start: string | null;
  acquired_at: Date;
}

/** The key of a worker's session lock: 64 bits of its random id. */
export function livenessKey(workerId: string): string {
  return BigInt.asIntN(64, BigInt(`0x${workerId.replace(/-/g, "").slice(0, 16)}`)).toString();
}

/**
 * One process's membership of a PostgreSQL state: a `workers` row kept alive by a heartbeat, and
 * the job leases it holds. Lease times use one clock (the server's `now()` by default), so
 * workers on machines with different clocks agree. Locally, a lease counts as held only until the
 * last renewal that the server confirmed plus the lease's life: past that (the database
 * unreachable), its signal aborts — the run must stop writing, because another worker may take
 * the job over.
 *
 * While it holds a job, the member also holds a session-level advisory lock (`livenessKey`) on
 * the process's liveness connection (pg-session.ts). A claimer takes a job over at once when its
 * holder is gone — its process no longer runs on this host, or its session lock is free (the
 * database saw its connection close); otherwise only once the lease expired (a partition: the
 * holder's connection still open but its heartbeats not arriving).
 */
export interface WorkerMembership {
  readonly id: string;
  claim(job: string, waitMs: number): Promise<JobLease>;
  /** Stops heart-beating at once (the process exits): the leases expire by themselves. */
  stop(): void;
  close(): Promise<void>;
}

interface Held {
  readonly controller: AbortController;
  /**
   * clock.local() when the last renewal the server confirmed was sent: the server extended
   * the lease to at least then + ttl by its clock, so here it is held until then + ttl.
   */
  confirmedAt: number;
  /** Released, or lost: either way this lease never touches the row again. */
  done: boolean;
}

/** Why a job's holder no longer holds it, or undefined while it does. */
export function takeOverReason(
  row: Pick<HolderRow, "expired" | "session_gone" | "host" | "pid" | "process_start">,
): TakeOverReason | undefined {
  if (row.expired) return "expired";
  if (
    row.host !== null &&
    row.pid !== null &&
    !isHolderAlive({
      pid: row.pid,
      host: row.host,
      processStart: row.process_start ?? undefined,
      acquiredAt: "",
    })
  ) {
    return "holder_dead";
  }
  return row.session_gone ? "session_closed" : undefined;
}

/** Why a renewal found its lease no longer this worker's. */
interface RenewRow {
  job: string;
  worker_id: string | null;
  expired: boolean | null;
  host: string | null;
  pid: number | null;
  acquired_at: Date | null;
}

function notRenewedWhy(r: RenewRow, id: string, ttl: number): string {
  if (r.worker_id === null) return "its lease is gone from the database (deleted by someone else)";
  if (r.worker_id === id) {
    return r.expired === true
      ? `it expired on the database before a renewal reached it (the lease lives ${ttl} ms)`
      : "the database did not renew it";
  }
  const who =
    r.pid === null || r.host === null ? "another worker" : `process ${r.pid} on ${r.host}`;
  const when = r.acquired_at === null ? "" : ` at ${r.acquired_at.toISOString()}`;
  return `${who} took it over${when}`;
}

export async function joinAsWorker(
  pool: Pool,
  location: string,
  timing: LeaseTiming = DEFAULT_TIMING,
  session?: LivenessSession,
): Promise<WorkerMembership> {
  const id = randomUUID();
  const key = livenessKey(id);
  const ttl = timing.ttlMs;
  const clock = timing.clock ?? SYSTEM_CLOCK;
  const grace = timing.sessionGraceMs ?? SESSION_GRACE_MS;
  /** The lease clock's time as a query parameter: null means the server's `now()`. */
  const dbNow = (): Date | null => clock.db?.() ?? null;
  await pool.query(
    `INSERT INTO workers (id, host, pid, worker_id, process_start, started_at, heartbeat_at)
     VALUES ($1, $2, $3, $4, $5, coalesce($6::timestamptz, now()), coalesce($6, now()))`,
    [
      ...[id, hostname(), process.pid, processWorkerId()],
      processStart(process.pid) ?? null,
      dbNow(),
    ],
  );
  // Rows of workers silent for a day are history: drop them and anything they still claim.
  await pool.query(
    `DELETE FROM workers WHERE heartbeat_at < coalesce($1::timestamptz, now()) - interval '1 day'`,
    [dbNow()],
  );
  await pool.query(
    `DELETE FROM job_leases WHERE expires_at < coalesce($1::timestamptz, now()) - interval '1 day'`,
    [dbNow()],
  );
  const held = new Map<string, Held>();
  const lose = (job: string, h: Held, why: string): void => {
    if (h.done) return;
    h.done = true;
    if (held.get(job) === h) held.delete(job);
    h.controller.abort(leaseLostError(job, why));
  };
  /** The session lock is held (taken on the first claim, kept until `close`). */
  let holding: Promise<void> | undefined;
  const onSessionLost = (why: string): void => {
    holding = undefined;
    // Other workers may take these jobs now: stop writing for them at once.
    for (const [job, h] of held) lose(job, h, `${why}, so other workers may take the job`);
  };
  const holdSession = (): Promise<void> => {
    if (session === undefined) return Promise.resolve();
    const s = session;
    // The lock first, then the row says so: from then on the worker is alive while it holds it.
    holding ??= s
      .hold(key, onSessionLost)
      .then(async () => {
        await pool.query("UPDATE workers SET liveness_lock = $2 WHERE id = $1", [id, key]);
      })
      .catch((error: unknown) => {
        holding = undefined;
        throw error;
      });
    return holding;
  };
  // Vouched for only while renewals succeed: given up well before the lease can expire on the
  // server, so no other worker can take the job while this one may still write.
  const vouched = vouchedMs(ttl);
  const silence = `the database confirmed no heartbeat for ${vouched} ms (the lease lives ${ttl} ms)`;
  const loseExpired = (): void => {
    const at = clock.local();
    for (const [job, h] of held) if (at - h.confirmedAt >= vouched) lose(job, h, silence);
  };
  let beating = false;
  const beat = async (): Promise<void> => {
    if (beating) return;
    beating = true;
    const sentAt = clock.local();
    try {
      // Only the leases this process still holds: one it gave up (lost while the database was
      // away) must expire on the server, even when the database comes back before it would.
      const at = dbNow();
      const jobs = [...held.keys()];
      const { rows } = await pool.query<{ job: string }>(
        `WITH w AS (UPDATE workers SET heartbeat_at = coalesce($4::timestamptz, now()) WHERE id = $1)
         UPDATE job_leases SET expires_at = coalesce($4::timestamptz, now()) + $2 * interval '1 millisecond'
         WHERE worker_id = $1 AND expires_at > coalesce($4::timestamptz, now()) AND job = ANY($3::text[])
         RETURNING job`,
        [id, ttl, jobs, at],
      );
      const renewed = new Set(rows.map((r) => r.job));
      const lapsed = jobs.filter((job) => !renewed.has(job));
      // Why a lease was not renewed, read after the renewal (a take-over it waited for included).
      const why = new Map<string, string>();
      if (lapsed.length > 0) {
        const found = await pool
          .query<RenewRow>(
            `SELECT j.job, l.worker_id, l.expires_at <= coalesce($2::timestamptz, now()) AS expired,
               o.host, o.pid, l.acquired_at
             FROM unnest($1::text[]) AS j(job) LEFT JOIN job_leases l ON l.job = j.job
               LEFT JOIN workers o ON o.id = l.worker_id`,
            [lapsed, at],
          )
          .then(
            (r) => r.rows,
            () => [],
          );
        for (const r of found) why.set(r.job, notRenewedWhy(r, id, ttl));
      }
      const asked = new Set(jobs);
      for (const [job, h] of held) {
        // Claimed while this beat was under way: not part of it.
        if (!asked.has(job) || h.confirmedAt > sentAt) continue;
        if (renewed.has(job)) h.confirmedAt = sentAt;
        else lose(job, h, why.get(job) ?? "the database did not renew it");
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

  type Attempt =
    | { ok: true; sentAt: number; tookOver: JobLease["takenOver"] }
    | { ok: false; holder: HolderRow | undefined };
  const tryClaim = (job: string): Promise<Attempt> =>
    inTransaction(pool, async (db): Promise<Attempt> => {
      const at = dbNow();
      // The holder's session lock is probed with a transaction lock: free means no connection
      // holds it (its holder's is closed), and it is let go again when this transaction ends.
      const { rows } = await db.query<HolderRow>(
        `SELECT l.worker_id, l.expires_at <= coalesce($3::timestamptz, now()) AS expired,
           CASE WHEN w.liveness_lock IS NULL OR l.worker_id = $2 THEN false
             ELSE pg_try_advisory_xact_lock(w.liveness_lock) END AS session_gone,
           w.host, w.pid, w.process_start, l.acquired_at
         FROM job_leases l LEFT JOIN workers w ON w.id = l.worker_id WHERE l.job = $1
         FOR UPDATE OF l`,
        [job, id, at],
      );
      const row = rows[0];
      const reason = row === undefined ? undefined : takeOverReason(row);
      // This worker's own live lease has no reason to be taken over (its pid runs, its session
      // lock is its own): claiming it twice is refused like any live holder's.
      if (row !== undefined && reason === undefined) {
        return { ok: false, holder: row };
      }
      const sentAt = clock.local();
      const taken = await db.query(
        row === undefined
          ? `INSERT INTO job_leases (job, worker_id, acquired_at, expires_at)
             VALUES ($1, $2, coalesce($4::timestamptz, now()),
               coalesce($4::timestamptz, now()) + $3 * interval '1 millisecond')
             ON CONFLICT (job) DO NOTHING`
          : `UPDATE job_leases SET worker_id = $2, acquired_at = coalesce($4::timestamptz, now()),
               expires_at = coalesce($4::timestamptz, now()) + $3 * interval '1 millisecond'
             WHERE job = $1`,
        [job, id, ttl, at],
      );
      if (taken.rowCount === 0) return { ok: false, holder: undefined };
      // We hold the job: a run of it still marked running belongs to a worker that is gone.
      await db.query(
        "UPDATE runs SET outcome = 'interrupted', finished_at = $1 WHERE job = $2 AND outcome IS NULL",
        [new Date().toISOString(), job],
      );
      return {
        ok: true,
        sentAt,
        tookOver:
          row === undefined || reason === undefined
            ? undefined
            : {
                reason,
                ...(row.pid === null || row.host === null
                  ? {}
                  : {
                      holder: {
                        pid: row.pid,
                        host: row.host,
                        since: row.acquired_at.toISOString(),
                      },
                    }),
              },
      };
    });

  return {
    id,
    async claim(job: string, waitMs: number): Promise<JobLease> {
      const started = Date.now();
      // The session lock first: no lease row names this worker before its liveness shows.
      await holdSession().catch(async () => {
        // No liveness connection to be had (the server's connection slots full, say): the job
        // is held all the same, judged by this process's pid and its lease's expiry only — the
        // row must then not name a session lock that nothing holds.
        await pool.query("UPDATE workers SET liveness_lock = NULL WHERE id = $1", [id]);
      });
      for (;;) {
        let attempt: Attempt;
        try {
          attempt = await tryClaim(job);
        } catch (error) {
          // Two workers inserting the first lease of a job at once: the loser tries again.
          if ((error as { code?: string }).code !== "23505") throw error;
          attempt = { ok: false, holder: undefined };
        }
        if (attempt.ok) {
          const h: Held = {
            controller: new AbortController(),
            confirmedAt: attempt.sentAt,
            done: false,
          };
          held.set(job, h);
          // The holder whose session ended hears it from the server at once: give it that
          // moment to stop before this run writes (a holder whose process is gone needs none).
          if (attempt.tookOver?.reason === "session_closed" && grace > 0) await sleep(grace);
          return {
            job,
            signal: h.controller.signal,
            ...(attempt.tookOver === undefined ? {} : { takenOver: attempt.tookOver }),
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
      // After the rows: a claimer never sees this worker's lease with its session lock free.
      if (holding !== undefined) {
        holding = undefined;
        await session?.unhold(key);
      }
    },
  };
}

/**
 * SQL: the session lock of worker row `w` is free — the connection that held it is closed. A
 * worker whose `liveness_lock` is null (it never held a job, or an older version wrote it) is
 * not judged by it. Reads `pg_locks` only: takes no lock.
 */
const SESSION_GONE = `(w.liveness_lock IS NOT NULL AND NOT EXISTS (
  SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 1
    AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND k.classid::bigint = (w.liveness_lock >> 32) & 4294967295
    AND k.objid::bigint = w.liveness_lock & 4294967295))`;

/** Whether the worker of a row is gone by its process (this host) or its session. */
function gone(r: {
  host: string;
  pid: number;
  process_start: string | null;
  session_gone: boolean;
}): boolean {
  if (r.session_gone) return true;
  return !isHolderAlive({
    pid: r.pid,
    host: r.host,
    processStart: r.process_start ?? undefined,
    acquiredAt: "",
  });
}

/**
 * The workers heard from within `DEAD_WORKERS_LISTED_MS`, oldest first, with the jobs they hold:
 * `alive` while their last heartbeat is younger than the lease life (by the server's clock) and
 * they are not gone (their process ended on this host, or their session lock is free).
 */
export async function listWorkers(pool: Pool, ttlMs: number): Promise<WorkerRecord[]> {
  const { rows } = await pool.query<{
    id: string;
    worker_id: string | null;
    host: string;
    pid: number;
    process_start: string | null;
    session_gone: boolean;
    started_at: Date;
    heartbeat_at: Date;
    silent_ms: number;
    alive: boolean;
    jobs: string[] | null;
  }>(
    `SELECT w.id, w.worker_id, w.host, w.pid, w.process_start, ${SESSION_GONE} AS session_gone,
       w.started_at, w.heartbeat_at,
       greatest(0, floor(extract(epoch FROM now() - w.heartbeat_at) * 1000))::float8 AS silent_ms,
       w.heartbeat_at > now() - $1 * interval '1 millisecond' AS alive,
       array_agg(l.job ORDER BY l.job) FILTER (WHERE l.job IS NOT NULL) AS jobs
     FROM workers w LEFT JOIN job_leases l ON l.worker_id = w.id AND l.expires_at > now()
     WHERE w.heartbeat_at > now() - $2 * interval '1 millisecond'
     GROUP BY w.id ORDER BY w.started_at, w.id`,
    [ttlMs, DEAD_WORKERS_LISTED_MS],
  );
  return rows.map((r) => {
    const alive = r.alive && !gone(r);
    return {
      id: r.id,
      ...(r.worker_id === null ? {} : { workerId: r.worker_id }),
      host: r.host,
      pid: r.pid,
      startedAt: r.started_at.toISOString(),
      heartbeatAt: r.heartbeat_at.toISOString(),
      silentMs: r.silent_ms,
      alive,
      jobs: alive ? (r.jobs ?? []) : [],
    };
  });
}

/** The worker holding the oldest live lease (a run going on), if any. */
export async function leaseHolder(pool: Pool): Promise<LockHolder | undefined> {
  const { rows } = await pool.query<{
    host: string;
    pid: number;
    process_start: string | null;
    session_gone: boolean;
    acquired_at: Date;
  }>(
    `SELECT w.host, w.pid, w.process_start, ${SESSION_GONE} AS session_gone, l.acquired_at
     FROM job_leases l JOIN workers w ON w.id = l.worker_id
     WHERE l.expires_at > now() ORDER BY l.acquired_at`,
  );
  const r = rows.find((row) => !gone(row));
  return r === undefined
    ? undefined
    : {
        pid: r.pid,
        host: r.host,
        processStart: r.process_start ?? undefined,
        acquiredAt: r.acquired_at.toISOString(),
      };
}
