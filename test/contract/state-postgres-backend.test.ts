import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StateError } from "../../src/core/errors.js";
import { openState } from "../../src/state/open-state.js";
import { PG_SCHEMA_VERSION } from "../../src/state/postgres/pg-schema.js";
import type { PostgresServer } from "../support/postgres-server.js";
import { postgresSkipReason, startPostgres } from "../support/postgres-server.js";
import { link } from "./support/state-suite.js";

// What only the PostgreSQL backend has: migrations shared by workers starting at once, refusing
// databases that are not ours, the password kept out of every message, and leases that a
// partition from the database makes the holder give up.
let server: PostgresServer | undefined;
let n = 0;
beforeAll(async () => {
  if (postgresSkipReason === undefined) server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

async function fresh(): Promise<string> {
  if (server === undefined) throw new Error("no PostgreSQL server");
  return server.createDatabase(`backend_${(n += 1)}`);
}

async function sql<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(postgresSkipReason !== undefined)(
  `the PostgreSQL state backend itself${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    it("migrates once when five workers open a new database at the same moment", async () => {
      const url = await fresh();
      const stores = await Promise.all(
        Array.from({ length: 5 }, () => openState({ backend: "postgres", url })),
      );
      try {
        await stores[0]?.putLink(link("1", "7"));
        expect(await stores[4]?.getLinkByTinypm("w", "story", "1")).toBeDefined();
        expect(await stores[2]?.workers()).toHaveLength(5);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
      const meta = await sql<{ key: string; value: string }>(
        url,
        "SELECT * FROM state_meta ORDER BY key",
      );
      expect(meta).toEqual([
        { key: "application", value: "tinypm-sync" },
        { key: "version", value: String(PG_SCHEMA_VERSION) },
      ]);
      expect(await sql(url, "SELECT * FROM workers")).toEqual([]);
    });

    it("refuses, and leaves untouched, a database of another application or of a newer version", async () => {
      const foreign = await fresh();
      await sql(foreign, "CREATE TABLE links (id int); INSERT INTO links VALUES (42)");
      const e1 = await openState({ backend: "postgres", url: foreign }).catch((e: unknown) => e);
      expect(e1).toBeInstanceOf(StateError);
      expect((e1 as StateError).code).toBe("state_invalid");
      expect((e1 as StateError).message).toMatch(/table links of another application/);
      expect(await sql(foreign, "SELECT * FROM links")).toEqual([{ id: 42 }]);
      expect(await sql(foreign, "SELECT to_regclass('state_meta') AS t")).toEqual([{ t: null }]);

      const newer = await fresh();
      const s = await openState({ backend: "postgres", url: newer });
      await s.close();
      await sql(newer, "UPDATE state_meta SET value = '99' WHERE key = 'version'");
      const e2 = await openState({ backend: "postgres", url: newer }).catch((e: unknown) => e);
      expect((e2 as StateError).code).toBe("state_invalid");
      expect((e2 as StateError).message).toMatch(/schema version 99, newer than/);
      expect((e2 as StateError).hint).toMatch(/Upgrade tinypm-sync/);
    });

    it("never shows the password: not in the location, not when the login or the server fails", async () => {
      const url = await fresh();
      const password = server?.password ?? "";
      const s = await openState({ backend: "postgres", url });
      expect(s.location).not.toContain(password);
      expect(s.location).toContain("***");
      await s.close();
      const wrong = url.replace(password, `${password}x`);
      const e = await openState({ backend: "postgres", url: wrong }).catch((x: unknown) => x);
      expect((e as StateError).code).toBe("state_unavailable");
      expect(
        JSON.stringify({
          m: (e as StateError).message,
          h: (e as StateError).hint,
          d: (e as StateError).details,
        }),
      ).not.toContain(password);
      const closed = url.replace(/:(\d+)\//, ":1/");
      const e3 = await openState({ backend: "postgres", url: closed }).catch((x: unknown) => x);
      expect((e3 as StateError).code).toBe("state_unavailable");
      expect((e3 as StateError).message).not.toContain(password);
    });

    it("reads without joining as a worker, refuses writes, and refuses a database never migrated", async () => {
      const url = await fresh();
      const early = await openState({ backend: "postgres", url }, { readOnly: true }).catch(
        (e: unknown) => e,
      );
      expect((early as StateError).code).toBe("state_invalid");
      expect((early as StateError).hint).toMatch(/Run `tinypm-sync sync` or `migrate` once/);
      const writer = await openState({ backend: "postgres", url });
      await writer.putLink(link("1", "7"));
      const lease = await writer.claimJob("w");
      const reader = await openState({ backend: "postgres", url }, { readOnly: true });
      try {
        expect(await reader.countLinks("w")).toBe(1);
        expect((await reader.workers()).map((w) => [w.pid, w.jobs])).toEqual([
          [process.pid, ["w"]],
        ]);
        await expect(reader.putLink(link("2", "8"))).rejects.toThrow(/read-only transaction/);
        await expect(reader.claimJob("v")).rejects.toThrow(/read-only state/);
      } finally {
        await reader.close();
        await lease.release();
        await writer.close();
      }
    });

    it("never renews a lease it gave up, even when its stalled heartbeat gets through before the lease expires", async () => {
      const url = await fresh();
      const timing = { lease: { ttlMs: 10_000, heartbeatMs: 1000 } };
      const a = await openState({ backend: "postgres", url }, timing);
      const b = await openState({ backend: "postgres", url }, timing);
      const blocker = new pg.Client({ connectionString: url });
      await blocker.connect();
      try {
        const lease = await a.claimJob("w");
        const lost = new Promise<void>((done) => {
          lease.signal.addEventListener("abort", () => {
            done();
          });
        });
        // A's heartbeat row stays locked: its renewals hang until A gives the lease up (8 s
        // after its last confirmed beat), 2 s before the lease expires on the server.
        await blocker.query("BEGIN");
        await blocker.query("SELECT id FROM workers FOR UPDATE");
        await lost;
        // The stalled beat then goes through while the lease is still valid on the server.
        await blocker.query("ROLLBACK");
        expect(lease.signal.aborted).toBe(true);
        // B gets the job once the lease expires; before the fix A's later beats kept renewing it.
        const taken = await b.claimJob("w", { waitMs: 20_000 });
        expect(taken.job).toBe("w");
        taken.assertHeld();
        await taken.release();
      } finally {
        await blocker.end();
        await a.close();
        await b.close();
      }
    }, 60_000);

    it("gives a lease up when the database stops answering for longer than the lease lives", async () => {
      const url = await fresh();
      const s = await openState(
        { backend: "postgres", url },
        { lease: { ttlMs: 1500, heartbeatMs: 300 } },
      );
      try {
        const lease = await s.claimJob("w");
        const aborted = new Promise<unknown>((done) => {
          lease.signal.addEventListener("abort", () => {
            done(lease.signal.reason);
          });
        });
        await server?.pause();
        try {
          const reason = await aborted;
          expect(reason).toBeInstanceOf(StateError);
          // The stopped server ends the process's liveness session: the lease is given up at
          // once (another worker could take the job as soon as the server is back).
          expect((reason as StateError).message).toMatch(
            /lease of job w was lost: (its database session (ended|broke)|the database confirmed no heartbeat)/,
          );
          expect(() => {
            lease.assertHeld();
          }).toThrow(/was lost/);
        } finally {
          await server?.start();
        }
        // Back on line, the job is free (its lease expired) and is claimed again.
        const again = await s.claimJob("w", { waitMs: 10_000 });
        again.assertHeld();
        await again.release();
      } finally {
        await s.close();
      }
    });
  },
);
