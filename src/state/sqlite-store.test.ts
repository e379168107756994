import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConflictResolvedError, InternalError, UsageError } from "../core/errors.js";
import type { LinkRecord, SqliteStore } from "./sqlite-store.js";
import { openSqliteStore } from "./sqlite-store.js";

let dir: string;
let store: SqliteStore;
const at = new Date("2026-11-21T06:00:00.000Z");

function link(tinypmId: string, extra: Partial<LinkRecord> = {}): LinkRecord {
  return {
    job: "widgets",
    kind: "story",
    tinypmId,
    targetSystem: "github",
    targetId: `gh-${tinypmId}`,
    origin: "tinypm",
    base: {
      tinypm: { title: `t${tinypmId}` },
      target: { title: `t${tinypmId}` },
      tinypmHash: "a",
      targetHash: "b",
    },
    updatedAt: at.toISOString(),
    ...extra,
  };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "state-store-"));
  store = openSqliteStore({ path: join(dir, "state.db"), now: () => at });
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("links", () => {
  it("finds a link by either side and round-trips the base snapshot", () => {
    store.putLink(link("1", { parentTinypmId: "9" }));
    expect(store.getLinkByTinypm("widgets", "story", "1")).toEqual(
      link("1", { parentTinypmId: "9" }),
    );
    expect(store.getLinkByTarget("widgets", "story", "gh-1")?.tinypmId).toBe("1");
    expect(store.getLinkByTarget("widgets", "task", "gh-1")).toBeUndefined();
    expect(store.getLinkByTinypm("other", "story", "1")).toBeUndefined();
  });

  it("upserts a link and refuses a target id already linked to another item", () => {
    store.putLink(link("1"));
    store.putLink(link("1", { targetId: "gh-7", origin: "github" }));
    expect(store.getLinkByTinypm("widgets", "story", "1")).toMatchObject({
      targetId: "gh-7",
      origin: "github",
    });
    expect(() => {
      store.putLink(link("2", { targetId: "gh-7" }));
    }).toThrow(InternalError);
    expect(store.countLinks("widgets")).toBe(1);
  });

  it("updates the base and deletes a link", () => {
    store.putLink(link("1"));
    const base = { tinypm: { title: "new" }, target: null, tinypmHash: "c", targetHash: "d" };
    store.updateBase("widgets", "story", "1", base);
    expect(store.getLinkByTinypm("widgets", "story", "1")?.base).toEqual(base);
    expect(() => {
      store.updateBase("widgets", "story", "404", base);
    }).toThrow(InternalError);
    store.deleteLink("widgets", "story", "1");
    expect(store.countLinks("widgets")).toBe(0);
  });

  it("holds 100k links and streams them in order while writing", () => {
    const total = 100_000;
    store.transaction(() => {
      for (let i = 0; i < total; i++) {
        store.putLink(link(String(i).padStart(6, "0"), { kind: i % 4 === 0 ? "task" : "story" }));
      }
    });
    expect(store.countLinks("widgets")).toBe(total);
    let seen = 0;
    let ordered = true;
    let previous = "";
    for (const l of store.links("widgets")) {
      const key = `${l.kind}/${l.tinypmId}`;
      ordered &&= key > previous;
      previous = key;
      if (seen % 10_000 === 0) store.updateBase(l.job, l.kind, l.tinypmId, l.base);
      seen++;
    }
    expect(ordered).toBe(true);
    expect(seen).toBe(total);
    expect([...store.links("widgets", "task")]).toHaveLength(total / 4);
    expect([...store.links("nobody")]).toEqual([]);
  });
});

describe("intents", () => {
  it("lists a recorded intent until it is confirmed, then holds the link instead", () => {
    const draft = {
      job: "widgets",
      kind: "story",
      originSystem: "tinypm",
      originId: "1",
      targetSystem: "github",
      payloadHash: "h1",
    } as const;
    const id = store.recordIntent(draft);
    expect(store.recordIntent({ ...draft, payloadHash: "h2" })).toBe(id);
    expect(store.pendingIntents("widgets")).toEqual([
      { ...draft, payloadHash: "h2", id, createdAt: at.toISOString() },
    ]);
    store.confirmIntent(id, link("1"));
    expect(store.pendingIntents("widgets")).toEqual([]);
    expect(store.getLinkByTinypm("widgets", "story", "1")).toBeDefined();
  });

  it("keeps the intent when the link cannot be stored (one transaction)", () => {
    store.putLink(link("2", { targetId: "gh-1" }));
    const id = store.recordIntent({
      job: "widgets",
      kind: "story",
      originSystem: "tinypm",
      originId: "1",
      targetSystem: "github",
      payloadHash: "h",
    });
    expect(() => {
      store.confirmIntent(id, link("1"));
    }).toThrow(InternalError);
    expect(store.pendingIntents("widgets").map((i) => i.id)).toEqual([id]);
    store.dropIntent(id);
    expect(store.pendingIntents("widgets")).toEqual([]);
  });
});

describe("confirming an intent", () => {
  it("refuses a link of another item and accepts a reverse create", () => {
    const forward = store.recordIntent({
      job: "widgets",
      kind: "story",
      originSystem: "tinypm",
      originId: "1",
      targetSystem: "github",
      payloadHash: "h",
    });
    expect(() => {
      store.confirmIntent(forward, link("2"));
    }).toThrow(/cannot be confirmed by the link of tinyPM 2/);
    const reverse = store.recordIntent({
      job: "widgets",
      kind: "story",
      originSystem: "github",
      originId: "gh-3",
      targetSystem: "tinypm",
      payloadHash: "h",
    });
    store.confirmIntent(reverse, link("3", { origin: "github" }));
    expect(store.pendingIntents("widgets").map((i) => i.id)).toEqual([forward]);
  });
});

describe("checkpoints and runs", () => {
  it("stores a checkpoint per job and system, and refuses secret-like keys", () => {
    expect(store.getCheckpoint("widgets", "github")).toBeUndefined();
    store.setCheckpoint("widgets", "github", { since: "2026-01-01", etag: 'W/"1"' });
    store.setCheckpoint("widgets", "github", { since: "2026-02-01", etag: 'W/"2"' });
    expect(store.getCheckpoint("widgets", "github")).toEqual({
      since: "2026-02-01",
      etag: 'W/"2"',
    });
    expect(() => {
      store.setCheckpoint("widgets", "jira", { accessToken: "x" });
    }).toThrow(/secret-like key accessToken/);
  });

  it("records runs newest first with counts and api calls", () => {
    const first = store.startRun("widgets", "migrate");
    const second = store.startRun("other", "sync");
    store.finishRun(first, {
      outcome: "ok",
      counts: { created: 3 },
      apiCalls: { github: { writes: 3 } },
    });
    expect(store.runs().map((r) => r.id)).toEqual([second, first]);
    expect(store.runs({ job: "widgets" })).toEqual([
      expect.objectContaining({
        id: first,
        mode: "migrate",
        outcome: "ok",
        counts: { created: 3 },
      }),
    ]);
    expect(store.runs({ limit: 1 })[0]).toMatchObject({
      id: second,
      outcome: "running",
      finishedAt: undefined,
    });
    expect(() => {
      store.finishRun("nope", { outcome: "ok", counts: {}, apiCalls: {} });
    }).toThrow(InternalError);
  });
});

describe("failures and conflicts", () => {
  it("parks a failure once per item and counts attempts across either id", () => {
    const f = {
      runId: "r1",
      job: "widgets",
      kind: "story",
      tinypmId: "1",
      side: "target",
      code: "payload_invalid",
      message: "bad",
    } as const;
    store.parkFailure(f);
    store.parkFailure({ ...f, job: "other" });
    expect(() => {
      store.parkFailure({ ...f, tinypmId: undefined });
    }).toThrow(InternalError);
    store.parkFailure({ ...f, runId: "r2", targetId: "gh-1", code: "not_found" });
    expect(store.failures("widgets")).toEqual([
      expect.objectContaining({
        runId: "r2",
        tinypmId: "1",
        targetId: "gh-1",
        code: "not_found",
        attempts: 2,
      }),
    ]);
    expect(store.failures()).toHaveLength(2);
    store.clearFailure("widgets", "story", "gh-1");
    expect(store.failures("widgets")).toEqual([]);
  });

  it("keeps one open conflict per field, resolves it and marks it applied", () => {
    const c = {
      job: "widgets",
      kind: "story",
      tinypmId: "1",
      targetId: "gh-1",
      field: "title",
      baseValue: "a",
      tinypmValue: "b",
      targetValue: "c",
    } as const;
    const id = store.openConflict(c);
    expect(store.openConflict({ ...c, targetValue: "d" })).toBe(id);
    expect(store.conflicts({ status: "open" })).toEqual([
      expect.objectContaining({ id, targetValue: "d", status: "open", resolution: undefined }),
    ]);
    expect(store.resolveConflict(id, "target")).toMatchObject({
      status: "resolved",
      resolution: "target",
    });
    // A second decision for the other side is refused; the same side changes nothing; `reopen`
    // changes it on purpose.
    expect(() => store.resolveConflict(id, "tinypm")).toThrow(ConflictResolvedError);
    expect(store.resolveConflict(id, "target").resolution).toBe("target");
    expect(store.resolveConflict(id, "tinypm", true).resolution).toBe("tinypm");
    expect(store.openConflict(c)).not.toBe(id);
    store.markConflictApplied(id);
    expect(store.conflicts({ job: "widgets", status: "resolved" })[0]?.appliedAt).toBe(
      at.toISOString(),
    );
    expect(() => store.resolveConflict(id, "target")).toThrow(UsageError);
    expect(() => store.resolveConflict(999, "target")).toThrow(/no conflict with id 999/);
    expect(store.conflicts()).toHaveLength(2);
  });
});

describe("the file", () => {
  it("passes the integrity check, closes idempotently and reopens with the data", () => {
    store.putLink(link("1"));
    expect(store.integrityCheck()).toBe("ok");
    store.close();
    store.close();
    store = openSqliteStore({ path: join(dir, "state.db") });
    expect(store.countLinks("widgets")).toBe(1);
  });

  it("marks runs left running by a crashed process as interrupted on the next open", () => {
    const runId = store.startRun("widgets", "sync");
    store.close();
    store = openSqliteStore({ path: join(dir, "state.db"), now: () => at });
    expect(store.runs()[0]).toMatchObject({
      id: runId,
      outcome: "interrupted",
      finishedAt: at.toISOString(),
    });
  });
});
