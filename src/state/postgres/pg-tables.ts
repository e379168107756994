import type { Pool, PoolClient } from "pg";
import { holdClient } from "./pg-db.js";
import type { CopiedTable, Row, StateTables, TableWriter } from "../tables.js";
import { TABLE_PAGE } from "../tables.js";

/** A key column compared byte by byte, like SQLite's BINARY collation, whatever the database's. */
const keyed = (t: CopiedTable, column: string): string =>
  t.numericKey === true ? column : `${column} COLLATE "C"`;

function pageSql(t: CopiedTable, first: boolean): string {
  const key = t.key.map((k) => keyed(t, k)).join(", ");
  const after = first ? "" : `WHERE (${key}) > (${t.key.map((_, i) => `$${i + 1}`).join(", ")})`;
  return `SELECT ${t.columns.join(", ")} FROM ${t.name} ${after} ORDER BY ${key} LIMIT ${TABLE_PAGE}`;
}

/** Tables whose ids come from an identity sequence, moved past the copied ids after a load. */
const IDENTITY_TABLES = ["intents", "failures", "conflicts"];

async function inClient<T>(
  pool: Pool,
  begin: string,
  fn: (c: PoolClient) => Promise<T>,
): Promise<T> {
  const { client, release } = await holdClient(pool);
  try {
    await client.query(begin);
    try {
      const result = await fn(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK");
      throw error;
    }
  } finally {
    release();
  }
}

/** Table-level access to a PostgreSQL state. */
export function createPgTables(pool: Pool): StateTables {
  return {
    async count(t) {
      const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t.name}`);
      return rows[0]?.n ?? 0;
    },
    snapshot: (fn) =>
      // One snapshot for every table: a copy taken while workers write is still consistent.
      inClient(pool, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", (client) =>
        fn((t) => ({
          async *[Symbol.asyncIterator]() {
            let last: Row | undefined;
            for (;;) {
              const { rows } = await client.query<Row>(
                pageSql(t, last === undefined),
                last === undefined ? [] : t.key.map((k) => last?.[k] ?? null),
              );
              for (const row of rows) yield row;
              last = rows.at(-1);
              if (last === undefined || rows.length < TABLE_PAGE) return;
            }
          },
        })),
      ),
    load: (fn) =>
      inClient(pool, "BEGIN", async (client) => {
        const writer: TableWriter = {
          clear: async (t) => {
            await client.query(`DELETE FROM ${t.name}`);
          },
          insert: async (t, rows) => {
            if (rows.length === 0) return;
            const width = t.columns.length;
            const tuples = rows.map(
              (_, r) => `(${t.columns.map((_c, c) => `$${r * width + c + 1}`).join(", ")})`,
            );
            await client.query(
              `INSERT INTO ${t.name} (${t.columns.join(", ")}) VALUES ${tuples.join(", ")}`,
              rows.flatMap((row) => t.columns.map((c) => row[c] ?? null)),
            );
          },
        };
        await fn(writer);
        for (const name of IDENTITY_TABLES) {
          await client.query(
            `SELECT setval(pg_get_serial_sequence('${name}', 'id'),
               coalesce((SELECT max(id) FROM ${name}), 1), (SELECT max(id) FROM ${name}) IS NOT NULL)`,
          );
        }
      }),
  };
}
