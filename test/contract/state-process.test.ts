import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { StateError } from "../../src/core/errors.js";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import type { StateChild } from "./support/state-child.js";
import { buildStateForChildren, spawnStateChild } from "./support/state-child.js";

let build: ReturnType<typeof buildStateForChildren>;
let dir: string;
let path: string;

beforeAll(() => {
  build = buildStateForChildren();
});
afterAll(() => {
  build.cleanup();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "state-process-"));
  path = join(dir, "state.db");
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const LINK = `{ job: "w", kind: "story", tinypmId: "1", targetSystem: "github", targetId: "7", origin: "tinypm",
  base: { tinypm: { title: "a" }, target: { title: "a" }, tinypmHash: "h", targetHash: "h" }, updatedAt: "now" }`;
const INTENT = `{ job: "w", kind: "story", originSystem: "tinypm", originId: "1", targetSystem: "github", payloadHash: "p" }`;
const HANG = "setInterval(() => {}, 1000);";

function child(code: string): StateChild {
  return spawnStateChild(build.storeUrl, `const path = ${JSON.stringify(path)};\n${code}`);
}

async function kill(c: StateChild): Promise<void> {
  c.process.kill("SIGKILL");
  await c.exited;
}

describe("a state file across processes", () => {
  it("keeps a pending intent when the process is killed after recordIntent", async () => {
    const c = child(`const s = openSqliteStore({ path });
      console.log("intent " + s.recordIntent(${INTENT})); ${HANG}`);
    expect(await c.line()).toBe("intent 1");
    await kill(c);
    const store = openSqliteStore({ path });
    try {
      expect(store.tookOverLockFrom?.pid).toBe(c.process.pid);
      expect(store.pendingIntents("w")).toMatchObject([{ id: 1, originId: "1", payloadHash: "p" }]);
      expect(store.countLinks("w")).toBe(0);
      expect(store.integrityCheck()).toBe("ok");
    } finally {
      store.close();
    }
  });

  it("holds the link and no intent when the process is killed after confirmIntent", async () => {
    const c = child(`const s = openSqliteStore({ path });
      s.confirmIntent(s.recordIntent(${INTENT}), ${LINK}); console.log("confirmed"); ${HANG}`);
    expect(await c.line()).toBe("confirmed");
    await kill(c);
    const store = openSqliteStore({ path });
    try {
      expect(store.pendingIntents("w")).toEqual([]);
      expect(store.getLinkByTarget("w", "story", "7")?.tinypmId).toBe("1");
      expect(store.integrityCheck()).toBe("ok");
    } finally {
      store.close();
    }
  });

  it("loses no committed batch and corrupts nothing when killed mid-write", async () => {
    const c = child(`const s = openSqliteStore({ path });
      const link = ${LINK};
      for (let batch = 0; ; batch++) {
        s.transaction(() => { for (let i = 0; i < 500; i++) s.putLink({ ...link, tinypmId: batch + "-" + i, targetId: batch + "/" + i }); });
        if (batch === 2) console.log("committed");
      }`);
    expect(await c.line()).toBe("committed");
    await kill(c);
    const store = openSqliteStore({ path });
    try {
      expect(store.integrityCheck()).toBe("ok");
      const count = store.countLinks("w");
      expect(count).toBeGreaterThanOrEqual(1_500);
      expect(count % 500).toBe(0);
    } finally {
      store.close();
    }
  });

  it("refuses a second process with state_locked naming the holder's pid", async () => {
    const holder = openSqliteStore({ path });
    try {
      const c = child(`try { openSqliteStore({ path }); console.log("opened"); }
        catch (e) { console.log(JSON.stringify({ code: e.code, pid: e.details.pid, message: e.message })); }`);
      const answer = JSON.parse(await c.line()) as { code: string; pid: number; message: string };
      expect(answer).toMatchObject({ code: "state_locked", pid: process.pid });
      expect(answer.message).toContain(`process ${process.pid}`);
      await c.exited;
    } finally {
      holder.close();
    }
  });

  it("refuses this process while a child holds the file, and waits when asked", async () => {
    const c = child(`const s = openSqliteStore({ path }); console.log("ready");
      setTimeout(() => { s.close(); process.exit(0); }, 400);`);
    expect(await c.line()).toBe("ready");
    let error: unknown;
    try {
      openSqliteStore({ path });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StateError);
    expect(error).toMatchObject({ code: "state_locked", details: { pid: c.process.pid } });
    const store = openSqliteStore({ path, waitForLockMs: 30_000 });
    expect(store.tookOverLockFrom).toBeUndefined();
    store.close();
    expect(await c.exited).toBe(0);
  });

  it("keeps a run's note written without waiting for the disk when the process is killed", async () => {
    // The notes of a running run (undo) skip the fsync: they must outlive a killed process.
    const c = child(`const s = openSqliteStore({ path });
      s.setCheckpoint("w", "created-by:r#0", { items: "[1]", count: 1 }, { syncToDisk: false });
      s.recordIntent(${INTENT});
      console.log("noted"); ${HANG}`);
    expect(await c.line()).toBe("noted");
    await kill(c);
    const store = openSqliteStore({ path });
    try {
      expect(store.getCheckpoint("w", "created-by:r#0")).toEqual({ items: "[1]", count: 1 });
      expect(store.pendingIntents("w")).toHaveLength(1);
      expect(store.integrityCheck()).toBe("ok");
    } finally {
      store.close();
    }
  });
});
