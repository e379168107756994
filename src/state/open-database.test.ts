import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, openDatabaseReadOnly } from "./open-database.js";
import { migrate } from "./schema.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("a state connection's page cache", () => {
  it("is SQLite's own 2 MiB, not the 16 MiB better-sqlite3 builds it with", () => {
    const dir = mkdtempSync(join(tmpdir(), "tps-cache-"));
    dirs.push(dir);
    const path = join(dir, "state.db");
    const db = openDatabase(path);
    migrate(db);
    expect(db.pragma("cache_size", { simple: true })).toBe(-2048);
    db.close();
    const reader = openDatabaseReadOnly(path);
    expect(reader.pragma("cache_size", { simple: true })).toBe(-2048);
    reader.close();
  });
});
