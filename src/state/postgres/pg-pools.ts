import pg, { type CustomTypesConfig, type Pool } from "pg";
import { createLivenessSession, LIVENESS_APPLICATION, type LivenessSession } from "./pg-session.js";

/** Connections one process keeps at most per database and mode (shared by all its stores). */
export const PG_POOL_SIZE = 4;
/** A connection idle this long is closed (a quiet process keeps none open for long). */
export const PG_IDLE_MS = 30_000;
const CONNECT_TIMEOUT_MS = 10_000;

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

/** A use of a shared pool: `release` once, when the store using it closes. */
export interface PoolUse {
  readonly pool: Pool;
  /** The process's liveness connection to this database (writing pools only use it). */
  readonly session: LivenessSession;
  /** The schema was found current on this database since its pools were (re)opened. */
  schemaKnown(): boolean;
  /** Records that the schema is current (after a migration or a version check). */
  schemaChecked(): void;
  /** Forgets that the schema is current (its check failed half-way): the next open checks again. */
  schemaDoubted(): void;
  /** Gives the pool back; the last use of a pool ends it. Idempotent. */
  release(): Promise<void>;
}

interface Entry {
  readonly pool: Pool;
  readonly session: LivenessSession;
  users: number;
}

/** The open pools of this process, by mode and URL. */
const pools = new Map<string, Entry>();
/** The URLs whose schema a store of this process found current (migrated or checked). */
const checked = new Set<string>();

function keyOf(url: string, readOnly: boolean): string {
  return `${readOnly ? "ro" : "rw"} ${url}`;
}

function createPool(url: string, readOnly: boolean, size: number): Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: size,
    idleTimeoutMillis: PG_IDLE_MS,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    types,
    ...(readOnly ? { options: "-c default_transaction_read_only=on" } : {}),
  });
  // An idle connection the server dropped (stopped, restarted, a partition) must not crash the
  // process: the pool discards it and the next query connects anew. The database may have come
  // back as another one (restored, recreated): the next store opened checks its schema again.
  pool.on("error", () => {
    checked.delete(url);
  });
  return pool;
}

/**
 * A use of the process's pool for `url` (read-only connections and writing ones are two pools):
 * created on the first use, ended when the last use is released. Every state store of a process
 * on one database shares it, so a process opening stores often (`serve`: every poll, every
 * dashboard read) reuses a few connections instead of setting up new ones each time. Nothing in
 * the stores holds a pool connection across calls except inside one call (a transaction, the
 * migration's session lock), so sharing changes no lock or lease; the job leases' liveness locks
 * live on the pool's own separate connection (`session`, see pg-session.ts).
 */
export function usePgPool(url: string, readOnly: boolean, size = PG_POOL_SIZE): PoolUse {
  const key = keyOf(url, readOnly);
  let entry = pools.get(key);
  if (entry === undefined) {
    entry = {
      pool: createPool(url, readOnly, size),
      session: createLivenessSession(
        () =>
          new pg.Client({
            connectionString: url,
            connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
            application_name: LIVENESS_APPLICATION,
          }),
      ),
      users: 0,
    };
    pools.set(key, entry);
  }
  const held = entry;
  held.users += 1;
  let released = false;
  return {
    pool: held.pool,
    session: held.session,
    schemaKnown: () => checked.has(url),
    schemaChecked: () => {
      checked.add(url);
    },
    schemaDoubted: () => {
      checked.delete(url);
    },
    release: async () => {
      if (released) return;
      released = true;
      held.users -= 1;
      if (held.users > 0) return;
      if (pools.get(key) === held) pools.delete(key);
      // The last pool on the database gone: a store opened later checks the schema again.
      if (!pools.has(keyOf(url, !readOnly))) checked.delete(url);
      await held.session.end();
      await held.pool.end().catch(() => undefined);
    },
  };
}

/** How many pools this process has open (tests and diagnostics). */
export function openPgPoolCount(): number {
  return pools.size;
}
