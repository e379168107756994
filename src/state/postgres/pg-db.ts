import type { Pool, PoolClient, QueryResultRow } from "pg";

/** What the data methods run their SQL on: the pool, or the client of an open transaction. */
export interface Db {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names its row type
  query<R extends QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }>;
  /** Runs `fn` in a transaction (inside an open one: as part of it). */
  atomic<T>(fn: (db: Db) => Promise<T>): Promise<T>;
}

/** A `Db` over one client in an open transaction: nested atomic blocks join it. */
export function clientDb(client: PoolClient): Db {
  const db: Db = {
    query: (text, values) => client.query(text, values),
    atomic: (fn) => fn(db),
  };
  return db;
}

/** Runs `fn` in a transaction on a client of the pool, committed or rolled back as a whole. */
export async function inTransaction<T>(pool: Pool, fn: (db: Db) => Promise<T>): Promise<T> {
  const client = await pool.connect();
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
    client.release(broken);
  }
}

/** A `Db` over the pool: each query on any free connection, `atomic` in its own transaction. */
export function poolDb(pool: Pool): Db {
  return {
    query: (text, values) => pool.query(text, values),
    atomic: (fn) => inTransaction(pool, fn),
  };
}
