import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StateError } from "../core/errors.js";
import { SCHEMA_VERSION, migrate } from "./schema.js";
import { openSqliteStore } from "./sqlite-store.js";

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "state-ro-"));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const draft = {
  job: "w",
  kind: "story",
  originSystem: "tinypm",
  originId: "1",
  targetSystem: "github",
  payloadHash: "p",
} as const;

describe("opening a state file", () => {
  it("reads next to the lock holder without the lock, and refuses writes", () => {
    const path = join(dir, "state.db");
    const holder = openSqliteStore({ path });
    try {
      holder.recordIntent(draft);
      const reader = openSqliteStore({ path, readOnly: true });
      expect(reader.pendingIntents("w")).toHaveLength(1);
      expect(() => reader.recordIntent(draft)).toThrow(/readonly/);
      reader.close();
      reader.close();
    } finally {
      holder.close();
    }
  });

  it("reads a missing file as an empty state without creating it", () => {
    const path = join(dir, "none.db");
    const reader = openSqliteStore({ path, readOnly: true });
    expect(reader.countLinks("w")).toBe(0);
    expect(reader.runs()).toEqual([]);
    expect(() => reader.startRun("w", "plan")).toThrow();
    reader.close();
    expect(existsSync(path)).toBe(false);
  });

  it("asks to upgrade an older file before reading it", () => {
    const path = join(dir, "old.db");
    const db = new Database(path);
    migrate(db, SCHEMA_VERSION - 1);
    db.close();
    let error: unknown;
    try {
      openSqliteStore({ path, readOnly: true });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StateError);
    expect((error as StateError).hint).toMatch(/upgrades the file/);
  });

  it("creates the missing directory of a new state file", () => {
    const path = join(dir, ".tinypm-sync", "state.db");
    openSqliteStore({ path }).close();
    expect(existsSync(path)).toBe(true);
  });

  it("names a path that cannot be opened", () => {
    const path = join(dir, "a-directory");
    mkdirSync(path);
    expect(() => openSqliteStore({ path })).toThrow(StateError);
    expect(() => openSqliteStore({ path })).toThrow(/a-directory is not a file/);
  });
});
