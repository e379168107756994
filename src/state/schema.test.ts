import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StateError } from "../core/errors.js";
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, migrate } from "./schema.js";
import { openSqliteStore } from "./sqlite-store.js";

let dir: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "state-schema-"));
  path = join(dir, "state.db");
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function raw<T>(fn: (db: Database.Database) => T): T {
  const db = new Database(path);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

function refusal(): StateError {
  try {
    openSqliteStore({ path }).close();
  } catch (error) {
    if (error instanceof StateError) return error;
    throw error;
  }
  throw new Error("expected openSqliteStore to refuse the file");
}

describe("migrations", () => {
  it("creates the newest schema in WAL mode from nothing", () => {
    const store = openSqliteStore({ path });
    store.close();
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.at(-1)?.version);
    raw((db) => {
      expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
      expect(db.pragma("application_id", { simple: true })).toBe(APPLICATION_ID);
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    });
  });

  it("upgrades a file of version N-1 and keeps its data", () => {
    raw((db) => {
      migrate(db, SCHEMA_VERSION - 1);
      db.prepare(
        `INSERT INTO links (job, kind, tinypm_id, target_system, target_id, origin, parent_tinypm_id,
           base_tinypm, base_target, tinypm_hash, target_hash, updated_at)
         VALUES ('w', 'story', '1', 'github', '7', 'tinypm', NULL, '{}', '{}', 'a', 'b', 'now')`,
      ).run();
    });
    const store = openSqliteStore({ path });
    try {
      expect(store.getLinkByTarget("w", "story", "7")?.tinypmId).toBe("1");
      store.parkFailure({
        runId: "r",
        job: "w",
        kind: "story",
        tinypmId: "1",
        side: "target",
        code: "c",
        message: "m",
      });
      expect(store.failures()).toHaveLength(1);
    } finally {
      store.close();
    }
    raw((db) => {
      expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
      expect(migrate(db)).toEqual([]);
    });
  });
});

describe("refusing a file", () => {
  it("refuses a file from a newer version with a hint to upgrade, leaving it untouched", () => {
    raw((db) => {
      migrate(db);
      db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    });
    const before = readFileSync(path);
    const error = refusal();
    expect(error.code).toBe("state_invalid");
    expect(error.message).toContain(`schema version ${SCHEMA_VERSION + 1}`);
    expect(error.hint).toMatch(/Upgrade tinypm-sync/);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it.each([
    ["a text file", Buffer.from("links:\n  - 1\n".repeat(100))],
    ["a truncated SQLite header", Buffer.from("SQLite format 3\0garbage")],
    [
      "random pages after a valid header",
      Buffer.concat([Buffer.from("SQLite format 3\0"), Buffer.alloc(8192, 0xab)]),
    ],
  ])("refuses %s as state_invalid naming the file, never overwriting it", (_name, bytes) => {
    writeFileSync(path, bytes);
    const error = refusal();
    expect(error.code).toBe("state_invalid");
    expect(error.message).toContain(path);
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it("refuses the SQLite database of another application", () => {
    raw((db) => db.exec("CREATE TABLE photos (id INTEGER)"));
    expect(refusal().message).toMatch(/another application \(table photos\)/);
    raw((db) => db.pragma("application_id = 42"));
    expect(refusal().message).toMatch(/application_id 42/);
  });
});
