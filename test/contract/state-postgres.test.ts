import { afterAll, beforeAll, describe } from "vitest";
import type { PostgresServer } from "../support/postgres-server.js";
import { postgresSkipReason, startPostgres } from "../support/postgres-server.js";
import { stateContract } from "./support/state-suite.js";

// The shared state contract on the PostgreSQL backend: a real server for this file, a new
// database per test, leases shortened to 2 s so a dead worker's expiry takes seconds.
let server: PostgresServer | undefined;
let n = 0;
beforeAll(async () => {
  if (postgresSkipReason === undefined) server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

describe.skipIf(postgresSkipReason !== undefined)(
  `the PostgreSQL state backend${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    stateContract(() => ({
      name: "postgres",
      fresh: async () => {
        if (server === undefined) throw new Error("no PostgreSQL server");
        return { backend: "postgres", url: await server.createDatabase(`contract_${(n += 1)}`) };
      },
      lease: { ttlMs: 2000, heartbeatMs: 500 },
    }));
  },
);
