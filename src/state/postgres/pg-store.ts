import { InternalError, StateError } from "../../core/errors.js";
import type { StateData, StateStore } from "../store.js";
import { holdClient, poolDb, inTransaction, type Db } from "./pg-db.js";
import { usePgPool, type PoolUse } from "./pg-pools.js";
import { pgBudget } from "./pg-budget.js";
import { pgJournal } from "./pg-journal.js";
import {
  DEFAULT_TIMING,
  joinAsWorker,
  leaseHolder,
  listWorkers,
  type LeaseTiming,
  type WorkerMembership,
} from "./pg-lease.js";
import { pgLinks } from "./pg-links.js";
import { pgClaims } from "./pg-claims.js";
import { pgRunRequests } from "./pg-run-requests.js";
import type { RunWorker } from "../run-journal.js";
import { hostname } from "node:os";
import { processWorkerId } from "../../core/worker-id.js";
import { createPgTables } from "./pg-tables.js";
import { migratePg, pgSchemaVersion, PG_SCHEMA_VERSION, PG_TABLES } from "./pg-schema.js";
import { redactUrl } from "../postgres-url.js";

/** Options of `openPostgresState`. */
export interface PostgresStateOptions {
  /** `postgres://user:password@host:port/database` (the password from the environment). */
  readonly url: string;
  /** Read without joining as a worker or migrating; every write fails. @default false */
  readonly readOnly?: boolean | undefined;
  /** The clock of the stored record timestamps (lease times use the server's). */
  readonly now?: (() => Date) | undefined;
  /**
   * Connections kept open at most, by the pool this process shares among its stores on this
   * database (the first store opened sets it). @default 4
   */
  readonly poolSize?: number | undefined;
  /** Lease life, heartbeat and clocks (tests shorten and drive them). @default 30 s and 10 s */
  readonly lease?: LeaseTiming | undefined;
  /** The shared rate budget's clock (epoch ms; tests drive it). @default the server's */
  readonly budgetClock?: (() => number) | undefined;
}

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
  const use = usePgPool(options.url, readOnly, options.poolSize);
  const pool = use.pool;
  try {
    // Another store of this process checked the schema on this pool: only see that the database
    // answers, on a connection the pool most likely has open already. A connection found dead
    // (the server restarted, perhaps as another database): connect anew and check again.
    const answers =
      use.schemaKnown() &&
      (await pool.query("SELECT 1").then(
        () => true,
        (error: unknown) => {
          if (!isConnectionError(error)) throw error;
          use.schemaDoubted();
          return false;
        },
      ));
    if (!answers) await checkSchema(use, location, readOnly);
  } catch (error) {
    await use.release();
    throw isConnectionError(error) ? unavailable(location, error) : error;
  }
  const timing = options.lease ?? DEFAULT_TIMING;
  let membership: WorkerMembership | undefined;
  try {
    membership = readOnly ? undefined : await joinAsWorker(pool, location, timing, use.session);
  } catch (error) {
    await use.release();
    throw isConnectionError(error) ? unavailable(location, error) : error;
  }
  const budget = readOnly
    ? undefined
    : pgBudget(
        pool,
        (error) => (isConnectionError(error) ? unavailable(location, error) : error),
        options.budgetClock,
      );
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
    budget,
    stopNow: () => {
      membership?.stop();
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await membership?.close();
      // The answers not yet recorded and the slots being given back go before the pool.
      await budget?.drain();
      await use.release();
    },
  };
}

/**
 * Migrates the database (or, read-only, checks its version) on one connection held for the whole
 * check: the migration's advisory lock is a session lock. A connection on which the check failed
 * is discarded, never handed back to the shared pool with the lock perhaps still held.
 */
async function checkSchema(use: PoolUse, location: string, readOnly: boolean): Promise<void> {
  let held;
  try {
    held = await holdClient(use.pool);
  } catch (error) {
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
    held.release(true);
    use.schemaDoubted();
    throw error;
  }
  held.release();
  use.schemaChecked();
}
