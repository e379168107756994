import pg, { type CustomTypesConfig } from "pg";
import { InternalError, StateError } from "../../core/errors.js";
import type { StateData, StateStore } from "../store.js";
import { holdClient, poolDb, inTransaction, type Db } from "./pg-db.js";
import { pgBudget } from "./pg-budget.js";
import { pgJournal } from "./pg-journal.js";
import {
  DEFAULT_TIMING,
  joinAsWorker,
  leaseHolder,
  listWorkers,
  type LeaseTiming,
} from "./pg-lease.js";
import { pgLinks } from "./pg-links.js";
import { pgClaims } from "./pg-claims.js";
import { pgRunRequests } from "./pg-run-requests.js";
import type { RunWorker } from "../run-journal.js";
import { hostname } from "node:os";
import { processWorkerId } from "../../core/worker-id.js";
import { createPgTables } from "./pg-tables.js";
import { migratePg, pgSchemaVersion, PG_SCHEMA_VERSION, PG_TABLES } from "./pg-schema.js";
import { redactUrl } from "../../core/postgres-url.js";

/** Options of `openPostgresState`. */
export interface PostgresStateOptions {
  /** `postgres://user:password@host:port/database` (the password from the environment). */
  readonly url: string;
  /** Read without joining as a worker or migrating; every write fails. @default false */
  readonly readOnly?: boolean | undefined;
  /** The clock of the stored record timestamps (lease times use the server's). */
  readonly now?: (() => Date) | undefined;
  /** Connections kept open. @default 4 */
  readonly poolSize?: number | undefined;
  /** Lease life and heartbeat (tests shorten them). @default 30 s and 10 s */
  readonly lease?: LeaseTiming | undefined;
}

const INT8_OID = 20;

/** pg's own parser of a type, typed loosely (its declaration wants the TypeId enum). */
const builtinParser = pg.types.getTypeParser as (oid: number, format?: string) => unknown;

/** bigint ids (intents, failures, conflicts) as numbers, like SQLite's: they stay far below 2^53. */
const types: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string): unknown =>
    oid === INT8_OID && format !== "binary"
      ? (value: string) => Number(value)
      : builtinParser(oid, format)) as CustomTypesConfig["getTypeParser"],
};

function unavailable(location: string, cause: unknown): StateError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new StateError(
    "state_unavailable",
    `PostgreSQL state ${location} cannot be reached (${reason}).`,
    {
      hint:
        "Check that the server runs and that `state.url` (or the variable named by " +
        "`state.urlEnv`) names the right host, port, database, user and password.",
      details: { location },
      cause,
    },
  );
}

function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string")
    return error instanceof Error && /connect|terminat/i.test(error.message);
  // Node socket errors, and PostgreSQL's connection and authentication classes (08, 28, 3D, 57P).
  return /^(E[A-Z]+|08|28|3D|57P)/.test(code);
}

function dataOf(db: Db, now: () => Date, worker: RunWorker): StateData {
  return {
    ...pgLinks(db, now),
    ...pgClaims(db, now),
    ...pgJournal(db, now, worker),
    ...pgRunRequests(db, now),
  };
}

/**
 * Opens a PostgreSQL state: migrates it under an advisory lock (several workers may start at
 * once) and joins it as a worker whose heartbeat keeps its job leases. Many processes may open
 * the same database; `claimJob` keeps each job on one of them.
 *
 * @throws StateError `state_unavailable` (unreachable, authentication), `state_invalid` (a
 *   foreign database, a newer schema)
 */
export async function openPostgresState(options: PostgresStateOptions): Promise<StateStore> {
  const location = redactUrl(options.url);
  const now = options.now ?? (() => new Date());
  const readOnly = options.readOnly === true;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 4,
    types,
    connectionTimeoutMillis: 10_000,
    ...(readOnly ? { options: "-c default_transaction_read_only=on" } : {}),
  });
  // An idle connection dropped by the server must not crash the process; the next query
  // reconnects or fails with an error the caller sees.
  pool.on("error", () => undefined);
  let held;
  try {
    held = await holdClient(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw unavailable(location, error);
  }
  const client = held.client;
  try {
    if (readOnly) {
      const version = await pgSchemaVersion(client, location);
      if (version !== PG_SCHEMA_VERSION) {
        throw new StateError(
          "state_invalid",
          `PostgreSQL state ${location} has schema version ${version}; reading it needs version ${PG_SCHEMA_VERSION}.`,
          {
            hint: "Run `tinypm-sync sync` or `migrate` once with this version: it creates or upgrades the state.",
            details: { location, version, supported: PG_SCHEMA_VERSION },
          },
        );
      }
    } else {
      await migratePg(client, location);
    }
  } catch (error) {
    held.release();
    await pool.end().catch(() => undefined);
    throw isConnectionError(error) ? unavailable(location, error) : error;
  }
  held.release();
  const timing = options.lease ?? DEFAULT_TIMING;
  const membership = readOnly ? undefined : await joinAsWorker(pool, location, timing);
  // Runs are journalled with the process's worker id (`workers` rows carry it too).
  const worker: RunWorker = { host: hostname(), id: processWorkerId() };
  let closed = false;
  return {
    backend: "postgres",
    location,
    tookOverLockFrom: undefined,
    ...dataOf(poolDb(pool), now, worker),
    transaction: <T>(fn: (tx: StateData) => Promise<T>): Promise<T> =>
      inTransaction(pool, (db) => fn(dataOf(db, now, worker))),
    claimJob: async (job, opts = {}) => {
      if (membership === undefined) {
        throw new InternalError(
          `Cannot claim job ${job} on a read-only state (a bug in the caller).`,
        );
      }
      return membership.claim(job, opts.waitMs ?? 0);
    },
    workers: () => listWorkers(pool, timing.ttlMs),
    liveHolder: () => leaseHolder(pool),
    integrityCheck: async () => {
      const problems: string[] = [];
      for (const table of PG_TABLES) {
        await pool.query(`SELECT 1 FROM ${table} LIMIT 1`).catch((e: unknown) => {
          problems.push(`${table}: ${(e as Error).message}`);
        });
      }
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM intents i JOIN links l ON l.job = i.job AND l.kind = i.kind
           AND ((i.origin_system = 'tinypm' AND l.tinypm_id = i.origin_id)
             OR (i.origin_system <> 'tinypm' AND l.target_id = i.origin_id))
           AND l.target_system = i.target_system`,
      );
      if ((rows[0]?.n ?? 0) > 0) problems.push(`${rows[0]?.n} intents whose link exists`);
      return problems.length === 0 ? "ok" : problems.join("\n");
    },
    tables: createPgTables(pool),
    budget: readOnly
      ? undefined
      : pgBudget(pool, (error) =>
          isConnectionError(error) ? unavailable(location, error) : error,
        ),
    stopNow: () => {
      membership?.stop();
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await membership?.close();
      await pool.end();
    },
  };
}
