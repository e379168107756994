import { readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StateError } from "../../src/core/errors.js";
import { keepStateConnections, openState } from "../../src/state/open-state.js";
import { openPgPoolCount, PG_POOL_SIZE } from "../../src/state/postgres/pg-pools.js";
import { MIGRATION_LOCK_KEY } from "../../src/state/postgres/pg-schema.js";
import type { PostgresServer } from "../support/postgres-server.js";
import { postgresSkipReason, startPostgres } from "../support/postgres-server.js";
import { link } from "./support/state-suite.js";

// One pool per process and database: stores opened one after another (serve opens one for every
// poll and dashboard read) reuse the process's connections instead of connecting anew, and
// check the schema only once. Connections are counted from the server's own log
// (log_connections), one line per backend started.
let server: PostgresServer | undefined;
let n = 0;
beforeAll(async () => {
  if (postgresSkipReason !== undefined) return;
  server = await startPostgres();
  await admin(server.url("postgres"), async (c) => {
    await c.query("ALTER SYSTEM SET log_connections = on");
    await c.query("SELECT pg_reload_conf()");
  });
});
afterAll(async () => {
  await server?.stop();
});

function pgServer(): PostgresServer {
  if (server === undefined) throw new Error("no PostgreSQL server");
  return server;
}

async function fresh(): Promise<{ url: string; name: string }> {
  const name = `pool_${(n += 1)}`;
  return { url: await pgServer().createDatabase(name), name };
}

async function admin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Backends started on `database` so far, by the server log (this test's own clients included). */
function connectionsTo(database: string): number {
  const log = readFileSync(join(pgServer().folder, "server.log"), "utf8");
  const line = new RegExp(`connection authorized: .*\\bdatabase=${database}(\\s|$)`);
  return log.split("\n").filter((l) => line.test(l)).length;
}

const postgres = (url: string) => ({ backend: "postgres" as const, url });

describe.skipIf(postgresSkipReason !== undefined)(
  `PostgreSQL stores share one pool per process${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    it("opens no new connection for stores opened and closed over and over while the connections are kept", async () => {
      const { url, name } = await fresh();
      const kept = keepStateConnections(postgres(url));
      try {
        const round = async (i: number): Promise<void> => {
          const writer = await openState(postgres(url));
          await writer.putLink(link(String(i), String(100 + i)));
          await writer.close();
          const reader = await openState(postgres(url), { readOnly: true });
          expect(await reader.getLinkByTinypm("w", "story", String(i))).toBeDefined();
          await reader.close();
        };
        await round(0);
        const afterFirst = connectionsTo(name);
        // The first round connected a writing and a reading connection, no more than a pool each.
        expect(afterFirst).toBeGreaterThanOrEqual(2);
        expect(afterFirst).toBeLessThanOrEqual(2 * PG_POOL_SIZE);
        for (let i = 1; i <= 15; i += 1) await round(i);
        // Without the shared pool, each of these 30 opens connected anew (30 more backends); a
        // heartbeat running beside an open may take one more connection of the pool.
        expect(connectionsTo(name) - afterFirst).toBeLessThanOrEqual(2);
        expect(openPgPoolCount()).toBe(2);
      } finally {
        await kept.close();
      }
      expect(openPgPoolCount()).toBe(0);
    }, 60_000);

    it("shares the pool of a store still open, and ends it when the last store closes", async () => {
      const { url, name } = await fresh();
      const first = await openState(postgres(url));
      const before = connectionsTo(name);
      for (let i = 0; i < 10; i += 1) {
        const again = await openState(postgres(url));
        await again.putLink(link(String(i), String(200 + i)));
        await again.close();
      }
      expect(connectionsTo(name) - before).toBeLessThanOrEqual(2);
      // The stores left open keep working once the others closed.
      expect(await first.countLinks("w")).toBe(10);
      await first.close();
      expect(openPgPoolCount()).toBe(0);
      // A store opened after the pool ended connects (and checks the schema) again.
      const later = await openState(postgres(url), { readOnly: true });
      expect(await later.countLinks("w")).toBe(10);
      await later.close();
      expect(connectionsTo(name)).toBeGreaterThan(before);
    }, 60_000);

    it("checks the schema once per pool: a store opened after the first does not wait for the migration lock", async () => {
      const { url } = await fresh();
      const kept = keepStateConnections(postgres(url));
      const holder = new pg.Client({ connectionString: url });
      await holder.connect();
      try {
        await (await openState(postgres(url))).close();
        // Another process migrating now holds the lock; this process checked the schema already.
        await holder.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
        const store = await openState(postgres(url));
        await store.putLink(link("1", "7"));
        await store.close();
        const reader = await openState(postgres(url), { readOnly: true });
        expect(await reader.countLinks("w")).toBe(1);
        await reader.close();
      } finally {
        await holder.end();
        await kept.close();
      }
    }, 60_000);

    it("checks the schema again once the server dropped the pool's connections", async () => {
      const { url, name } = await fresh();
      const kept = keepStateConnections(postgres(url));
      try {
        await (await openState(postgres(url))).close();
        await (await openState(postgres(url), { readOnly: true })).close();
        // The database comes back as another one: a newer tinypm-sync wrote it meanwhile.
        await admin(url, async (c) => {
          await c.query("UPDATE state_meta SET value = '999' WHERE key = 'version'");
          await c.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            [name],
          );
        });
        // The backends gone; whether or not this process heard of it yet, the next opens find
        // the schema changed.
        for (;;) {
          const left = await admin(pgServer().url("postgres"), async (c) => {
            const { rows } = await c.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1",
              [name],
            );
            return rows[0]?.n ?? 0;
          });
          if (left === 0) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        for (const readOnly of [false, true]) {
          const error = await openState(postgres(url), { readOnly }).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(StateError);
          expect((error as StateError).code).toBe("state_invalid");
        }
      } finally {
        await kept.close();
      }
    }, 60_000);

    it("keeps read-only stores read-only beside writing ones on the same database", async () => {
      const { url } = await fresh();
      const writer = await openState(postgres(url));
      const reader = await openState(postgres(url), { readOnly: true });
      try {
        await expect(reader.putLink(link("1", "7"))).rejects.toThrow(/read-only transaction/);
        await writer.putLink(link("1", "7"));
        expect(await reader.countLinks("w")).toBe(1);
      } finally {
        await reader.close();
        await writer.close();
      }
    }, 60_000);

    it("fails opens with state_unavailable while the server is stopped, and opens again on the same pool once it is back", async () => {
      const { url } = await fresh();
      const kept = keepStateConnections(postgres(url));
      try {
        const store = await openState(postgres(url));
        await store.putLink(link("1", "7"));
        await store.close();
        await pgServer().pause();
        try {
          const error = await openState(postgres(url), { readOnly: true }).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(StateError);
          expect((error as StateError).code).toBe("state_unavailable");
          expect((error as Error).message).not.toContain(pgServer().password);
        } finally {
          await pgServer().start();
        }
        const reader = await openState(postgres(url), { readOnly: true });
        expect(await reader.countLinks("w")).toBe(1);
        await reader.close();
        const writer = await openState(postgres(url));
        await writer.putLink(link("2", "8"));
        await writer.close();
      } finally {
        await kept.close();
      }
      expect(openPgPoolCount()).toBe(0);
    }, 120_000);
  },
);
