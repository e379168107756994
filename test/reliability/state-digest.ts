import Database from "better-sqlite3";
import { existsSync } from "node:fs";

const TABLES = ["links", "checkpoints", "intents", "failures", "conflicts"] as const;

/**
 * The state's content, run journal and lock row aside (an aborted run is recorded as a run):
 * links, checkpoints, intents, parked failures and conflicts, as JSON.
 */
export function stateDigest(
  path: string,
  tables: readonly (typeof TABLES)[number][] = TABLES,
): string {
  if (!existsSync(path)) return "absent";
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const version = String(db.pragma("user_version", { simple: true }));
    const rows = tables.map((t) => db.prepare(`SELECT * FROM ${t} ORDER BY 1`).all());
    return JSON.stringify({ version, rows });
  } finally {
    db.close();
  }
}
