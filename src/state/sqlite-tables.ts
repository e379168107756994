import type { Database } from "better-sqlite3";
import type { CopiedTable, Row, StateTables, TableWriter } from "./tables.js";
import { TABLE_PAGE } from "./tables.js";

function pageSql(t: CopiedTable, first: boolean): string {
  const key = t.key.join(", ");
  const after = first ? "" : `WHERE (${key}) > (${t.key.map(() => "?").join(", ")})`;
  return `SELECT ${t.columns.join(", ")} FROM ${t.name} ${after} ORDER BY ${key} LIMIT ${TABLE_PAGE}`;
}

/** Table-level access to an SQLite state (text keys compare byte by byte: BINARY collation). */
export function createSqliteTables(db: Database): StateTables {
  const read = (t: CopiedTable): AsyncIterable<Row> => ({
    async *[Symbol.asyncIterator]() {
      let last: Row | undefined;
      for (;;) {
        const rows =
          last === undefined
            ? (db.prepare(pageSql(t, true)).all() as Row[])
            : (db.prepare(pageSql(t, false)).all(...t.key.map((k) => last?.[k] ?? null)) as Row[]);
        for (const row of rows) yield row;
        last = rows.at(-1);
        if (last === undefined || rows.length < TABLE_PAGE) return;
        await Promise.resolve();
      }
    },
  });
  const writer: TableWriter = {
    clear: (t) => {
      db.prepare(`DELETE FROM ${t.name}`).run();
      return Promise.resolve();
    },
    insert: (t, rows) => {
      const stmt = db.prepare(
        `INSERT INTO ${t.name} (${t.columns.join(", ")}) VALUES (${t.columns.map(() => "?").join(", ")})`,
      );
      for (const row of rows) stmt.run(...t.columns.map((c) => row[c] ?? null));
      return Promise.resolve();
    },
  };
  return {
    count: (t) =>
      Promise.resolve((db.prepare(`SELECT count(*) AS n FROM ${t.name}`).get() as { n: number }).n),
    async snapshot(fn) {
      db.exec("BEGIN");
      try {
        return await fn(read);
      } finally {
        db.exec("COMMIT");
      }
    },
    async load(fn) {
      db.exec("BEGIN IMMEDIATE");
      try {
        await fn(writer);
        db.exec("COMMIT");
      } catch (error) {
        if (db.inTransaction) db.exec("ROLLBACK");
        throw error;
      }
    },
  };
}
