import type { Pool, PoolClient, QueryConfig, QueryResultRow } from "pg";

/** What the data methods run their SQL on: the pool, or the client of an open transaction. */
export interface Db {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names its row type
  query<R extends QueryResultRow>(
    text: string,
    values?: unknown[],
    /**
     * Keeps the statement prepared on each connection under this name: the server parses and
     * plans it once per connection, not once per call. Only for statements whose result columns
     * never change (never `SELECT *`: a later migration adding a column would break its plan).
     */
    name?: string,
  ): Promise<{ rows: R[]; rowCount: number | null }>;
  /** Runs `fn` in a transaction (inside an open one: as part of it). */
  atomic<T>(fn: (db: Db) => Promise<T>): Promise<T>;
}

function named(name: string, text: string, values: unknown[] | undefined): QueryConfig {
  return { name, text, values: values ?? [] };
}

/** A `Db` over one client in an open transaction: nested atomic blocks join it. */
export function clientDb(client: PoolClient): Db {
  const db: Db = {
    query: (text, values, name) =>
      name === undefined ? client.query(text, values) : client.query(named(name, text, values)),
    atomic: (fn) => fn(db),
  };
  return db;
}

/**
 * A connection of the pool, held until `release`. While held, the pool does not listen to its
 * errors: a connection the server drops then (the database stopped, a partition) must not crash
 * the process with an unhandled `error` event — the query under way fails instead, and the
 * connection is discarded.
 */
export async function holdClient(
  pool: Pool,
): Promise<{ client: PoolClient; release: (broken?: boolean) => void }> {
  const client = await pool.connect();
  let dropped = false;
  const onError = (): void => {
    dropped = true;
  };
  client.on("error", onError);
  return {
    client,
    release: (broken = false) => {
      client.off("error", onError);
      client.release(broken || dropped);
    },
  };
}

/** Runs `fn` in a transaction on a client of the pool, committed or rolled back as a whole. */
export async function inTransaction<T>(pool: Pool, fn: (db: Db) => Promise<T>): Promise<T> {
  const { client, release } = await holdClient(pool);
  let broken = false;
  try {
    await client.query("BEGIN");
    try {
      const result = await fn(clientDb(client));
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
      throw error;
    }
  } finally {
    release(broken);
  }
}

/** A `Db` over the pool: each query on any free connection, `atomic` in its own transaction. */
export function poolDb(pool: Pool): Db {
  return {
    query: (text, values, name) =>
      name === undefined ? pool.query(text, values) : pool.query(named(name, text, values)),
    atomic: (fn) => inTransaction(pool, fn),
  };
}
