import { afterAll, beforeAll } from "vitest";
import type { PostgresServer } from "../support/postgres-server.js";
import { postgresSkipReason, startPostgres } from "../support/postgres-server.js";
import { startServers, tempDir, type Servers } from "./fixtures.js";
import type { Served } from "./serve-support.js";

/** What a file of `serve` tests shares: set up before its first test, torn down after its last. */
export interface ServeWorld {
  readonly tmp: { dir: string; cleanup: () => void };
  /** Every `serve` started: stopped (`stopSignal`) before anything else closes. */
  readonly served: Served[];
  /** The tinyPM, GitHub and Jira servers (throws before set-up). */
  servers(): Servers;
  /** The PostgreSQL server (throws before set-up, or where PostgreSQL is not installed). */
  pg(): PostgresServer;
  /** Closed after the serves stopped and before the servers close (a proxy in front of them). */
  closeLater(thing: { close(): Promise<void> }): void;
}

/**
 * Registers the file's `beforeAll`/`afterAll`: the servers with `generate`'s data and, with
 * `postgres` and where PostgreSQL is installed, a PostgreSQL server.
 */
export function useServeWorld(
  generate: string,
  options: { postgres: boolean; stopSignal?: NodeJS.Signals },
): ServeWorld {
  const tmp = tempDir();
  const served: Served[] = [];
  const later: { close(): Promise<void> }[] = [];
  let pg: PostgresServer | undefined;
  let servers: Servers | undefined;
  beforeAll(async () => {
    servers = await startServers(generate);
    if (options.postgres && postgresSkipReason === undefined) pg = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    for (const s of served) {
      s.proc.kill(options.stopSignal ?? "SIGTERM");
      await s.proc.done;
    }
    for (const thing of later) await thing.close();
    await servers?.close();
    await pg?.stop();
    tmp.cleanup();
  });
  return {
    tmp,
    served,
    servers: () => {
      if (servers === undefined) throw new Error("the servers are not set up");
      return servers;
    },
    pg: () => {
      if (pg === undefined) throw new Error("PostgreSQL is not set up");
      return pg;
    },
    closeLater: (thing) => void later.push(thing),
  };
}
