import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StateError } from "../core/errors.js";
import { isHolderAlive } from "./lock.js";
import { openSqliteStore } from "./sqlite-store.js";

let dir: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "state-lock-"));
  path = join(dir, "state.db");
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited (and was reaped). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(child.stdout.toString());
}

function plantLock(pid: number, processStart: string | null): void {
  openSqliteStore({ path }).close();
  const db = new Database(path);
  db.prepare("INSERT INTO state_lock VALUES (1, 'old', ?, ?, ?, '2026-01-01T00:00:00.000Z')").run(
    pid,
    hostname(),
    processStart,
  );
  db.close();
}

describe("the state lock", () => {
  it("refuses a second store on the same file, naming the holder's pid", () => {
    const first = openSqliteStore({ path });
    try {
      let error: unknown;
      try {
        openSqliteStore({ path, waitForLockMs: 120 });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(StateError);
      expect(error).toMatchObject({ code: "state_locked", details: { pid: process.pid } });
      expect((error as StateError).message).toContain(`process ${process.pid}`);
    } finally {
      first.close();
    }
    openSqliteStore({ path }).close();
  });

  it("takes over the lock of a process that is gone", () => {
    const pid = deadPid();
    plantLock(pid, null);
    const store = openSqliteStore({ path });
    expect(store.tookOverLockFrom).toMatchObject({ pid, acquiredAt: "2026-01-01T00:00:00.000Z" });
    store.close();
  });

  it("takes over a lock whose pid was reused by a younger process", () => {
    plantLock(process.pid, "1");
    const store = openSqliteStore({ path });
    expect(store.tookOverLockFrom?.pid).toBe(process.pid);
    store.close();
  });

  it("counts a holder on another host as alive", () => {
    expect(
      isHolderAlive({ pid: deadPid(), host: "elsewhere", processStart: undefined, acquiredAt: "" }),
    ).toBe(true);
    expect(
      isHolderAlive({ pid: deadPid(), host: hostname(), processStart: undefined, acquiredAt: "" }),
    ).toBe(false);
  });
});
