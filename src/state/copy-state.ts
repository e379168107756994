import { createHash } from "node:crypto";
import { StateError } from "../core/errors.js";
import type { StateStore } from "./store.js";
import { COPIED_TABLES, TABLE_PAGE, type CopiedTable, type Row, type ReadTable } from "./tables.js";

/** One table of a copy: rows and the SHA-256 of its rows in key order, on both sides. */
export interface TableCopy {
  readonly table: string;
  readonly rows: number;
  readonly sha256: string;
  readonly destinationRows: number;
  readonly destinationSha256: string;
}

/** What `copyState` did. */
export interface StateCopy {
  readonly tables: readonly TableCopy[];
  /** Every table arrived with the same count and hash. */
  readonly verified: boolean;
}

/** One row as hashed: its values in column order, JSON-encoded (numbers and text stay apart). */
function rowLine(table: CopiedTable, row: Row): string {
  return `${JSON.stringify(table.columns.map((c) => row[c] ?? null))}\n`;
}

async function digest(
  read: ReadTable,
  table: CopiedTable,
): Promise<{ rows: number; sha256: string }> {
  const hash = createHash("sha256");
  let rows = 0;
  for await (const row of read(table)) {
    hash.update(rowLine(table, row));
    rows += 1;
  }
  return { rows, sha256: hash.digest("hex") };
}

/**
 * Copies every table of `from` into `to` (either backend to either), in one write transaction
 * on the destination, then reads both again and compares row counts and hashes per table.
 * Workers and leases are not copied: they belong to the processes of one database.
 *
 * @throws StateError `state_invalid` when the destination holds data and `overwrite` is not
 *   set (nothing is written), or when a table arrives different (the copy is then kept for
 *   inspection: the error names the tables)
 */
export async function copyState(
  from: StateStore,
  to: StateStore,
  opts: { overwrite?: boolean } = {},
): Promise<StateCopy> {
  if (opts.overwrite !== true) {
    const filled: string[] = [];
    for (const t of COPIED_TABLES) {
      const n = await to.tables.count(t);
      if (n > 0) filled.push(`${t.name} (${n})`);
    }
    if (filled.length > 0) {
      throw new StateError(
        "state_invalid",
        `The destination state ${to.location} is not empty: ${filled.join(", ")}; nothing was copied.`,
        {
          hint: "Copy into an empty state, or add --overwrite to replace what the destination holds.",
          details: { destination: to.location, tables: filled },
        },
      );
    }
  }
  const source = await from.tables.snapshot(async (read) => {
    const sums = new Map<string, { rows: number; sha256: string }>();
    await to.tables.load(async (write) => {
      for (const t of COPIED_TABLES) {
        await write.clear(t);
        const hash = createHash("sha256");
        let rows = 0;
        let page: Row[] = [];
        for await (const row of read(t)) {
          hash.update(rowLine(t, row));
          rows += 1;
          page.push(row);
          if (page.length === TABLE_PAGE) {
            await write.insert(t, page);
            page = [];
          }
        }
        await write.insert(t, page);
        sums.set(t.name, { rows, sha256: hash.digest("hex") });
      }
    });
    return sums;
  });
  const tables = await to.tables.snapshot(async (read) => {
    const out: TableCopy[] = [];
    for (const t of COPIED_TABLES) {
      const there = await digest(read, t);
      const here = source.get(t.name) ?? { rows: 0, sha256: "" };
      out.push({
        table: t.name,
        rows: here.rows,
        sha256: here.sha256,
        destinationRows: there.rows,
        destinationSha256: there.sha256,
      });
    }
    return out;
  });
  const differ = tables.filter(
    (t) => t.rows !== t.destinationRows || t.sha256 !== t.destinationSha256,
  );
  if (differ.length > 0) {
    throw new StateError(
      "state_invalid",
      `The copy into ${to.location} differs from ${from.location} in ${differ.map((t) => t.table).join(", ")}.`,
      {
        hint: "Report this as a bug with both states; the source was not changed.",
        details: { tables: differ },
      },
    );
  }
  return { tables, verified: true };
}
