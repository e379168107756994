import { readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { REQUEST_POLL_MS } from "../../src/serve/run-requests.js";
import { PG_POOL_SIZE } from "../../src/state/postgres/pg-pools.js";
import { postgresSkipReason, type PostgresServer } from "../support/postgres-server.js";
import { writeConfig } from "./fixtures.js";
import { editConfig, eventually, startServe } from "./serve-support.js";
import { useServeWorld } from "./serve-world.js";

// An idle `serve` on PostgreSQL polls its state all the time (a state check every 2 s, the run
// requests of other workers every 5 s, its worker heartbeat): those polls reuse the process's
// pool, they do not connect anew each time. Connections are counted from the server's log
// (log_connections: one line per backend started), the polls from the database's committed
// transactions.

const world = useServeWorld("stories=2,tasks=1,comments=0", { postgres: true });
const { tmp, served } = world;

async function onServer<T>(server: PostgresServer, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: server.url("postgres") });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Backends started on `database` so far, by the server log. */
function connectionsTo(server: PostgresServer, database: string): number {
  const line = new RegExp(`connection authorized: .*\\bdatabase=${database}(\\s|$)`);
  const log = readFileSync(join(server.folder, "server.log"), "utf8");
  return log.split("\n").filter((l) => line.test(l)).length;
}

/** Transactions committed on `database` (every poll commits at least one). */
async function commitsOn(server: PostgresServer, database: string): Promise<number> {
  return onServer(server, async (c) => {
    const { rows } = await c.query<{ n: string }>(
      "SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = $1",
      [database],
    );
    return Number(rows[0]?.n ?? 0);
  });
}

interface JobsAnswer {
  jobs: { name: string; lastRun: { outcome: string } | null }[];
}

describe.skipIf(postgresSkipReason !== undefined)(
  `serve's connections to a PostgreSQL state${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    it("stay as many while the idle worker polls: no new connection per poll", async () => {
      const server = world.pg();
      const servers = world.servers();
      const database = "serve_connections";
      const url = await server.createDatabase(database);
      await onServer(server, async (c) => {
        await c.query("ALTER SYSTEM SET log_connections = on");
        await c.query("SELECT pg_reload_conf()");
      });
      const config = writeConfig(tmp.dir, servers);
      editConfig(config, (c) => {
        c.jobs = c.jobs
          .filter((j) => j.name === "gh")
          .map((j) => ({ ...j, schedule: { every: "1h" } }));
        c.state = { urlEnv: "STATE_URL" };
      });
      const s = await startServe(config, { ...servers.env, STATE_URL: url });
      served.push(s);
      // The startup run done, the worker is idle: only its polls touch the state from now on.
      await eventually(
        async () => {
          // Asked again until the startup run is journalled ok.
          const res = await fetch(`${s.url}/api/jobs`);
          if (!res.ok) return undefined;
          const { jobs } = (await res.json()) as JobsAnswer;
          return jobs.find((j) => j.name === "gh")?.lastRun?.outcome === "ok" ? true : undefined;
        },
        "the startup run",
        120_000,
      );
      const connections = connectionsTo(server, database);
      const commits = await commitsOn(server, database);
      const started = Date.now();
      // Four run-request poll intervals (and ten state checks), and enough polls seen by the
      // server (its statistics may lag a few seconds): one connection per poll would be a dozen.
      await eventually(
        async () =>
          Date.now() - started >= 4 * REQUEST_POLL_MS &&
          (await commitsOn(server, database)) - commits >= 40
            ? true
            : undefined,
        "the idle worker's polls",
        180_000,
      );
      const opened = connectionsTo(server, database) - connections;
      // Polls that overlap may take another connection of the pool (bounded), never one per poll.
      expect(opened).toBeLessThanOrEqual(PG_POOL_SIZE);

      s.proc.kill("SIGTERM");
      expect((await s.proc.done).code).toBe(0);
      served.splice(served.indexOf(s), 1);
    }, 300_000);
  },
);
