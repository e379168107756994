import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMemoryTracker } from "../../../src/adapters/memory/index.js";
import type { ItemRef, WorkItemDraft } from "../../../src/core/model.js";
import type { Tracker } from "../../../src/core/tracker.js";
import { createLanes } from "../../../src/gate/lanes.js";
import { loadMapping } from "../../../src/mapping/load.js";
import { sqliteStateOver } from "../../../src/state/sqlite-state.js";
import { openSqliteStore } from "../../../src/state/sqlite-store.js";
import type { StateStore } from "../../../src/state/store.js";
import { newRunMemory } from "../../../src/sync/apply/run-memory.js";
import type { EngineContext } from "../../../src/sync/context.js";
import { runEngine, type EngineOptions } from "../../../src/sync/engine.js";
import { planRun, readDeletions } from "../../../src/sync/plan-step.js";
import type { PlanJob } from "../../../src/sync/plan/plan-input.js";
import { statusOverBase } from "../../../src/sync/plan/status-over-base.js";
import { BaselessLink, baseDeleted, baseTitle } from "../../../src/sync/plan/links.js";
import { readRun } from "../../../src/sync/read/run-read.js";
import { settle } from "../../../src/sync/settle/settle.js";

/**
 * The steps of one run — read, settle, plan — each against two in-memory trackers (tinyPM and a
 * GitHub-shaped target) and a real SQLite state in a temporary folder.
 */

const JOB: PlanJob = { name: "pipe", direction: "both", conflicts: "manual", onDelete: "close" };
const NOW = new Date("2026-11-28T12:00:00.000Z");
const MAPPING = loadMapping("mappings/github.yaml");

let dir: string;
let store: ReturnType<typeof openSqliteStore>;
let state: StateStore;
let tinypm: ReturnType<typeof createMemoryTracker>;
let target: ReturnType<typeof createMemoryTracker>;

function story(title: string, status = "PENDING"): WorkItemDraft {
  return { kind: "story", title, status, assignees: [], labels: [] };
}

function options(extra: Partial<EngineOptions> = {}): EngineOptions {
  return {
    mode: "sync",
    job: JOB,
    targetSystem: "github",
    tinypm,
    target,
    mappingSpec: MAPPING,
    state,
    lanes: createLanes({ limits: { tinypm: { concurrency: 1 }, github: { concurrency: 1 } } }),
    now: () => NOW,
    ...extra,
  };
}

/** The state with every call of `links` counted. */
function countingLinks(s: StateStore): { state: StateStore; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(s, {
    get(t, prop, receiver) {
      const value = Reflect.get(t, prop, receiver) as unknown;
      if (prop !== "links" || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        reads++;
        return (value as (...a: unknown[]) => unknown).apply(t, args);
      };
    },
  });
  return { state: proxy, reads: () => reads };
}

/** The state with every link read by key (`getLinkByTinypm`: a base read) noted. */
function countingBaseReads(s: StateStore): { state: StateStore; asked: string[] } {
  const asked: string[] = [];
  const proxy = new Proxy(s, {
    get(t, prop, receiver) {
      const value = Reflect.get(t, prop, receiver) as unknown;
      if (prop !== "getLinkByTinypm" || typeof value !== "function") return value;
      return (job: string, kind: string, id: string) => {
        asked.push(`${kind}:${id}`);
        return (value as (...a: unknown[]) => unknown).call(t, job, kind, id);
      };
    },
  });
  return { state: proxy, asked };
}

async function targetOf(tinypmId: string): Promise<ItemRef> {
  const link = await state.getLinkByTinypm(JOB.name, "story", tinypmId);
  if (link === undefined) throw new Error(`story ${tinypmId} is not linked`);
  return { kind: "story", id: link.targetId };
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "pipeline-"));
  store = openSqliteStore({ path: join(dir, "state.db"), now: () => NOW });
  state = sqliteStateOver(store);
  tinypm = createMemoryTracker({ system: "tinypm" });
  target = createMemoryTracker({ system: "github" });
  for (const n of [1, 2, 3, 4, 5, 6]) await tinypm.create(story(`Story ${n}`));
  await runEngine(options({ mode: "migrate" }));
  // A first sync leaves the target's checkpoint past the migration's own writes.
  await runEngine(options());
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("read", () => {
  it("a quiet sync: no target users read, the mapping without users, nothing to settle", async () => {
    let userReads = 0;
    const counted = new Proxy(target, {
      get(t, prop, receiver) {
        if (prop === "listUsers") userReads++;
        return Reflect.get(t, prop, receiver) as unknown;
      },
    });
    const before = target.calls().reads;
    const read = await readRun(options({ target: counted }), JOB, false, NOW);
    expect(read.quiet).toBe(true);
    expect(read.users.table).toBeUndefined();
    expect(userReads).toBe(0);
    // The feed alone (one page).
    expect(target.calls().reads - before).toBe(1);
    expect(read.links).toHaveLength(6);
    expect(read.statusTouched.size).toBe(0);
  });

  it("compiles the mapping once, with the target's users, on a run that has something to do", async () => {
    /** A spec that counts the reads of its comment rule: compileMapping reads it, nothing else. */
    const counting = () => {
      let reads = 0;
      const spec = new Proxy(MAPPING, {
        get(t, prop, receiver) {
          if (prop === "comments") reads++;
          return Reflect.get(t, prop, receiver) as unknown;
        },
      });
      return { spec, reads: () => reads };
    };
    const quiet = counting();
    expect((await readRun(options({ mappingSpec: quiet.spec }), JOB, false, NOW)).quiet).toBe(true);
    expect(quiet.reads()).toBeGreaterThan(0);
    await tinypm.update({ kind: "story", id: "1" }, { set: { title: "Story 1, renamed" } });
    await target.update(await targetOf("2"), { set: { title: "Story 2, renamed there" } });
    const busy = counting();
    const read = await readRun(options({ mappingSpec: busy.spec }), JOB, false, NOW);
    expect(read.quiet).toBe(false);
    expect(read.users.table).toBeDefined();
    // As many reads as the quiet run's one compile (without users): one compile, with them.
    expect(busy.reads()).toBe(quiet.reads());
  });

  it("reads the stored links once in a whole run that has something to do", async () => {
    await tinypm.update({ kind: "story", id: "1" }, { set: { title: "Story 1, renamed" } });
    await target.update(await targetOf("2"), { set: { title: "Story 2, renamed there" } });
    const counted = countingLinks(state);
    const report = await runEngine(options({ state: counted.state }));
    expect(report.summary.updated).toBe(2);
    expect(counted.reads()).toBe(1);
  });

  it("a quiet sync holds its links without their bases", async () => {
    const read = await readRun(options(), JOB, false, NOW);
    expect(read.quiet).toBe(true);
    expect(read.links).toHaveLength(6);
    for (const link of read.links) {
      expect(link).toBeInstanceOf(BaselessLink);
      expect(() => link.baseTinypm).toThrow(/held without its bases/);
    }
    // What the plan needs of them is there: titles and recorded deletions.
    expect(read.links.map((l) => baseTitle(l)).sort()).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => `Story ${n}`),
    );
    expect(read.links.some((l) => baseDeleted(l, "tinypm") || baseDeleted(l, "target"))).toBe(
      false,
    );
  });

  it("reads the bases of the pairs a run acts on, and of no other", async () => {
    await tinypm.update({ kind: "story", id: "1" }, { set: { title: "Story 1, renamed" } });
    await target.update(await targetOf("2"), { set: { title: "Story 2, renamed there" } });
    const { state: counting, asked } = countingBaseReads(state);
    const read = await readRun(options({ state: counting }), JOB, false, NOW);
    expect(read.quiet).toBe(false);
    const withBases = read.links.filter((l) => !(l instanceof BaselessLink));
    expect(withBases.map((l) => l.tinypmId).sort()).toEqual(["1", "2"]);
    expect([...new Set(asked)].sort()).toEqual(["story:1", "story:2"]);
    const report = await runEngine(options());
    expect(report.summary.updated).toBe(2);
  });

  it("tells the pairs the last run updated unchanged by their digests: no base read", async () => {
    await tinypm.update({ kind: "story", id: "1" }, { set: { title: "Story 1, renamed" } });
    await target.update(await targetOf("2"), { set: { title: "Story 2, renamed there" } });
    expect((await runEngine(options())).summary.updated).toBe(2);
    const { state: counting, asked } = countingBaseReads(state);
    // The run reads its own writes back on the target (echoes): a read of their bases. The
    // next one is quiet, and reads none.
    await runEngine(options({ state: counting }));
    asked.length = 0;
    const read = await readRun(options({ state: counting }), JOB, false, NOW);
    expect(read.quiet).toBe(true);
    expect(asked).toEqual([]);
  });

  it("compares a tinyPM item with its base itself when their digests differ", async () => {
    // A base stored under another digest (an older build, another mapping): the item is
    // compared with the base itself, found as it was, and the run stays quiet.
    const link = await state.getLinkByTinypm(JOB.name, "story", "3");
    if (link === undefined) throw new Error("story 3 is not linked");
    await state.putLink({ ...link, base: { ...link.base, tinypmHash: "stale" } });
    const before = target.calls().reads;
    const read = await readRun(options(), JOB, false, NOW);
    expect(read.quiet).toBe(true);
    expect(target.calls().reads - before).toBe(1);
    const report = await runEngine(options());
    expect(report.summary.updated).toBe(0);
  });

  it("asks the target's history only for pairs whose status it would write over its base", async () => {
    await tinypm.update({ kind: "story", id: "1" }, { set: { status: "ACCEPTED" } });
    await tinypm.update({ kind: "story", id: "2" }, { set: { title: "Story 2, renamed" } });
    const asked: string[] = [];
    const withHistory: Tracker = Object.assign(Object.create(target) as Tracker, {
      statusLeftSince: (ref: ItemRef, held: string) => {
        asked.push(`${ref.id}:${held}`);
        return Promise.resolve(true);
      },
    });
    const o = options({ target: withHistory });
    const read = await readRun(o, JOB, true, NOW);
    const one = await targetOf("1");
    expect(asked).toEqual([`${one.id}:open`]);
    expect([...read.statusTouched]).toEqual(["story:1"]);
    // The question is the plan's own answer for the status field: the same pair, once.
    expect(
      statusOverBase({ ...read, job: JOB, targetSystem: "github", now: NOW }).map(
        (q) => q.tinypmId,
      ),
    ).toEqual(["1"]);
    // A status set back on the target is an edit too: the plan parks it (manual policy).
    const plan = planRun(
      JOB,
      "github",
      read,
      { links: read.links, targetItems: read.target.items },
      NOW,
    );
    const update = plan.actions.find((a) => a.type === "update" && a.tinypmItem.id === "1");
    expect(update?.type === "update" && update.conflicts.map((c) => c.field)).toEqual(["status"]);
  });
});

describe("settle", () => {
  function contextOf(read: Awaited<ReturnType<typeof readRun>>): EngineContext {
    return {
      job: JOB,
      runId: "test-run",
      targetSystem: "github",
      targetLocation: "github:default",
      tinypm,
      target,
      mapping: read.mapping,
      state,
      lanes: options().lanes,
      emit: () => undefined,
      now: () => NOW,
      tinypmIterations: new Map(),
      memory: newRunMemory(),
    };
  }

  it("a dry run rebuilds a lost link for its plan but writes nothing; a real one stores it", async () => {
    const three = await targetOf("3");
    await state.deleteLink(JOB.name, "story", "3");
    // The copy changed on the target since: its feed returns it, and the identity step finds it.
    await target.update(three, { set: { title: "Story 3, renamed there" } });
    const read = await readRun(options(), JOB, true, NOW);
    expect(read.links).toHaveLength(5);
    const dry = await settle(contextOf(read), read, true);
    expect(dry.links).toHaveLength(6);
    expect(dry.identity?.rebuilt).toHaveLength(1);
    expect(await state.countLinks(JOB.name)).toBe(5);
    const real = await settle(contextOf(read), read, false);
    expect(real.links).toHaveLength(6);
    expect(await state.countLinks(JOB.name)).toBe(6);
    // With the link rebuilt, the plan creates nothing again.
    const plan = planRun(JOB, "github", read, real, NOW);
    expect(plan.actions.filter((a) => a.type === "create")).toEqual([]);
  });

  it("links an interrupted create from the link it writes, without reading the links again", async () => {
    const seven = await tinypm.create(story("Story 7"));
    // A migration cut short: the intent recorded, the copy made with its marker, no link.
    await state.recordIntent({
      job: JOB.name,
      kind: "story",
      originSystem: "tinypm",
      originId: seven.id,
      targetSystem: "github",
      payloadHash: "h",
    });
    const marker = { job: JOB.name, origin: "tinypm", originKind: "story", originId: seven.id };
    const copy = await target.create({ ...story("Story 7"), marker } as WorkItemDraft);
    const read = await readRun(options(), JOB, false, NOW);
    expect(read.links).toHaveLength(6);
    const counted = countingLinks(state);
    const settled = await settle({ ...contextOf(read), state: counted.state }, read, false);
    expect(counted.reads()).toBe(0);
    expect(await state.countLinks(JOB.name)).toBe(7);
    expect(settled.links).toHaveLength(7);
    expect(settled.links.find((l) => l.tinypmId === seven.id)?.targetId).toBe(copy.id);
  });
});

describe("plan", () => {
  it("counts the read's deletions before settling, and the run stops before any write", async () => {
    for (const id of ["1", "2"]) await tinypm.delete({ kind: "story", id });
    // Settling would write: a lost link to rebuild.
    const three = await targetOf("3");
    await state.deleteLink(JOB.name, "story", "3");
    await target.update(three, { set: { title: "Story 3, renamed there" } });
    const job: PlanJob = { ...JOB, maxDeletes: 1 };
    const read = await readRun(options({ job, fullScan: true }), job, false, NOW);
    const deletions = readDeletions(job, "github", read, NOW);
    expect(deletions.actions.map((a) => a.type === "delete" && a.side)).toEqual([
      "target",
      "target",
    ]);
    const writes = tinypm.calls().writes + target.calls().writes;
    await expect(runEngine(options({ job, fullScan: true }))).rejects.toMatchObject({
      code: "mass_delete",
    });
    expect(tinypm.calls().writes + target.calls().writes).toBe(writes);
    expect(await state.countLinks(JOB.name)).toBe(5);
  });

  it("plans once from the read and the settled value: the same plan for the same inputs", async () => {
    await tinypm.update({ kind: "story", id: "4" }, { set: { title: "Story 4, renamed" } });
    await tinypm.create(story("Story 7"));
    const read = await readRun(options(), JOB, true, NOW);
    const settled = { links: read.links, targetItems: read.target.items };
    const first = planRun(JOB, "github", read, settled, NOW);
    expect(planRun(JOB, "github", read, settled, NOW)).toEqual(first);
    expect(first.actions.map((a) => `${a.type}:${a.title}`)).toContain("create:Story 7");
    expect(first.actions.map((a) => `${a.type}:${a.title}`)).toContain("update:Story 4, renamed");
  });
});
