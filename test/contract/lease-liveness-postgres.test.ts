import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StateError } from "../../src/core/errors.js";
import { openState } from "../../src/state/open-state.js";
import { livenessKey, type LeaseTiming } from "../../src/state/postgres/pg-lease.js";
import { LIVENESS_APPLICATION } from "../../src/state/postgres/pg-session.js";
import type { StateStore } from "../../src/state/store.js";
import type { PostgresServer } from "../support/postgres-server.js";
import { postgresSkipReason, startPostgres } from "../support/postgres-server.js";

// Issue #31 (4): a holder that is gone frees its jobs at once — its process no longer runs on
// this host, or PostgreSQL saw its connection close — while a holder whose connection is open is
// still refused. The lease's own expiry (30 s) is left for partitions.
let server: PostgresServer | undefined;
let n = 0;
beforeAll(async () => {
  if (postgresSkipReason === undefined) server = await startPostgres();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

async function fresh(): Promise<string> {
  if (server === undefined) throw new Error("no PostgreSQL server");
  const url = await server.createDatabase(`liveness_${(n += 1)}`);
  // The schema, as any worker's first open makes it.
  const s = await openState({ backend: "postgres", url });
  await s.close();
  return url;
}

/** A pid no process has here now: a child that ran and exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid;
}

/**
 * A worker of another machine holding `job` as the real code does: its `workers` row with the
 * key of its session lock, the lock held on a connection of its own, and the lease row.
 */
async function foreignHolder(
  url: string,
  job: string,
  o: { host?: string; pid?: number; sessionLock?: boolean } = {},
): Promise<{ connection: pg.Client; pid: number; host: string }> {
  const id = randomUUID();
  const key = livenessKey(id);
  const host = o.host ?? "worker-elsewhere";
  const pid = o.pid ?? 4242;
  const connection = new pg.Client({ connectionString: url });
  await connection.connect();
  const lock = o.sessionLock ?? true;
  if (lock) await connection.query("SELECT pg_advisory_lock($1::bigint)", [key]);
  await connection.query(
    `INSERT INTO workers (id, host, pid, worker_id, liveness_lock) VALUES ($1, $2, $3, $4, $5)`,
    [id, host, pid, `${host}:${pid}`, lock ? key : null],
  );
  await connection.query(
    `INSERT INTO job_leases (job, worker_id, acquired_at, expires_at)
     VALUES ($1, $2, now(), now() + interval '30 seconds')`,
    [job, id],
  );
  return { connection, pid, host };
}

async function refusal(state: StateStore, job: string): Promise<StateError> {
  const e = await state.claimJob(job).then(
    () => new Error("claimed"),
    (error: unknown) => error,
  );
  expect(e).toBeInstanceOf(StateError);
  return e as StateError;
}

describe.skipIf(postgresSkipReason !== undefined)(
  `a job's holder that is gone${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    it("on another host: refused while its connection is open, taken over at once when it closes", async () => {
      const url = await fresh();
      const holder = await foreignHolder(url, "w");
      const b = await openState({ backend: "postgres", url });
      try {
        // Its connection is open: no false take-over, whatever its host.
        const refused = await refusal(b, "w");
        expect(refused.code).toBe("state_locked");
        expect(refused.message).toContain(`process ${holder.pid} on ${holder.host}`);

        await holder.connection.end(); // the holder's machine died: PostgreSQL closes its session
        const started = performance.now();
        const lease = await b.claimJob("w"); // no waiting: at once
        const tookMs = performance.now() - started;
        expect(lease.takenOver).toMatchObject({
          reason: "session_closed",
          holder: { pid: holder.pid, host: holder.host },
        });
        // Far below the lease's life (30 s): the holder's session grace (1 s) and a query.
        expect(tookMs).toBeLessThan(10_000);
        lease.assertHeld();
        await lease.release();
      } finally {
        await holder.connection.end().catch(() => undefined);
        await b.close();
      }
    });

    it("on this host: taken over at once when its process is gone, refused while it runs", async () => {
      const url = await fresh();
      // A holder as an older version wrote it (no session lock): only its pid tells.
      const gone = await foreignHolder(url, "dead", {
        host: hostname(),
        pid: deadPid(),
        sessionLock: false,
      });
      const alive = await foreignHolder(url, "alive", {
        host: hostname(),
        pid: process.pid,
        sessionLock: false,
      });
      const b = await openState({ backend: "postgres", url });
      try {
        const lease = await b.claimJob("dead");
        expect(lease.takenOver).toMatchObject({ reason: "holder_dead", holder: { pid: gone.pid } });
        // A running process on this host with no session lock: only its lease's expiry frees it.
        expect((await refusal(b, "alive")).code).toBe("state_locked");
        await lease.release();
      } finally {
        await gone.connection.end();
        await alive.connection.end();
        await b.close();
      }
    });

    it("a live worker of this very code keeps its job; when the database ends its session it stops at once and the job is free", async () => {
      const url = await fresh();
      const timing: LeaseTiming = { ttlMs: 30_000, heartbeatMs: 10_000, sessionGraceMs: 200 };
      const a = await openState({ backend: "postgres", url }, { lease: timing });
      // B is another process's worker as far as the database is concerned: a pool of its own.
      const b = await openState(
        { backend: "postgres", url: `${url}?application_name=worker_b` },
        { lease: timing },
      );
      try {
        const leaseA = await a.claimJob("w");
        expect((await refusal(b, "w")).code).toBe("state_locked");
        let lostAt = Infinity;
        leaseA.signal.addEventListener("abort", () => {
          lostAt = performance.now();
        });
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        const { rows } = await admin.query<{ n: number }>(
          `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
           WHERE application_name = $1 AND datname = current_database()`,
          [LIVENESS_APPLICATION],
        );
        await admin.end();
        expect(rows[0]?.n).toBeGreaterThan(0);
        const leaseB = await b.claimJob("w", { waitMs: 10_000 });
        const claimedAt = performance.now();
        expect(leaseB.takenOver?.reason).toBe("session_closed");
        // A heard it before B could write.
        expect(lostAt).toBeLessThan(claimedAt);
        const reason = leaseA.signal.reason as StateError;
        expect(reason.message).toMatch(
          /^The lease of job w was lost: its database session (ended|broke)/,
        );
        expect(() => {
          leaseA.assertHeld();
        }).toThrow(/was lost/);
        await leaseB.release();
        // A claims again on a new session: its liveness comes back with it.
        const again = await a.claimJob("w");
        expect((await refusal(b, "w")).code).toBe("state_locked");
        await again.release();
      } finally {
        await a.close();
        await b.close();
      }
    });

    it("says why a lease was lost: expired on the database, or taken over by whom", async () => {
      const url = await fresh();
      // The lease clocks are the test's: nothing depends on the machine's speed or the hour.
      const t0 = Date.parse("2026-01-01T00:00:00Z");
      let timeA = t0;
      let timeB = t0;
      const timing = (db: () => Date): LeaseTiming => ({
        ttlMs: 30_000,
        heartbeatMs: 20,
        clock: { db, local: () => 0 }, // A's own vouching never runs out here
      });
      const a = await openState(
        { backend: "postgres", url },
        { lease: timing(() => new Date(timeA)) },
      );
      const b = await openState(
        { backend: "postgres", url: `${url}?application_name=worker_b` },
        { lease: timing(() => new Date(timeB)) },
      );
      const lost = (l: { signal: AbortSignal }): Promise<string> =>
        new Promise((resolve) => {
          const done = (): void => {
            resolve((l.signal.reason as Error).message);
          };
          if (l.signal.aborted) done();
          else l.signal.addEventListener("abort", done);
        });
      try {
        const first = await a.claimJob("expired");
        timeA += 30_001; // the lease's life passed before a renewal reached the database
        expect(await lost(first)).toBe(
          "The lease of job expired was lost: it expired on the database before a renewal reached it (the lease lives 30000 ms).",
        );

        const second = await a.claimJob("taken");
        // By B's clock A's lease is over (A's renewals, by its own, never reach that far).
        timeB = timeA + 30_001;
        const leaseB = await b.claimJob("taken");
        expect(leaseB.takenOver).toMatchObject({
          reason: "expired",
          holder: { pid: process.pid, host: hostname() },
        });
        expect(await lost(second)).toBe(
          `The lease of job taken was lost: process ${process.pid} on ${hostname()} took it over at ${new Date(timeB).toISOString()}.`,
        );
        await leaseB.release();
      } finally {
        await a.close();
        await b.close();
      }
    });
  },
);
