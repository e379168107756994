import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMemoryTracker } from "../../../src/adapters/memory/index.js";
import type { Tracker } from "../../../src/core/tracker.js";
import { createLanes } from "../../../src/gate/lanes.js";
import { loadMapping } from "../../../src/mapping/load.js";
import { sqliteStateOver } from "../../../src/state/sqlite-state.js";
import { openSqliteStore } from "../../../src/state/sqlite-store.js";
import type { StateStore } from "../../../src/state/store.js";
import { runEngine, type EngineOptions } from "../../../src/sync/engine.js";
import { toReport } from "../../../src/sync/report-data.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/**
 * A migration keeps none of tinyPM's items as read: each item's description, comments and time
 * entries are packed as it is read (src/sync/read/light-items.ts), and its create's source once
 * the plan is made (src/sync/plan/lazy-create.ts), whatever the report asks. A run that reports
 * its summary alone (`report: "summary"`, the CLI's `--json`) also lets go of each action once
 * sent; a run that reports every item keeps its actions, their sources read back for the report.
 * The items are followed with weak references as tinyPM's tracker hands them to the run.
 */

const STORIES = 150;
const NOW = new Date("2026-11-29T12:00:00.000Z");

let dir: string;
let store: ReturnType<typeof openSqliteStore>;
let state: StateStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "release-"));
  store = openSqliteStore({ path: join(dir, "state.db"), now: () => NOW });
  state = sqliteStateOver(store);
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** tinyPM's tracker, each item it lists a fresh copy followed by a weak reference. */
function followed(tracker: Tracker): {
  tracker: Tracker;
  alive: () => Promise<number>;
  read: () => number;
} {
  const refs: WeakRef<object>[] = [];
  const proxy = new Proxy(tracker, {
    get(t, prop, receiver) {
      const value = Reflect.get(t, prop, receiver) as unknown;
      if (prop !== "list" || typeof value !== "function") return value;
      const list = value as Tracker["list"];
      return async function* (...args: Parameters<Tracker["list"]>) {
        for await (const item of list.apply(t, args)) {
          const copy = structuredClone(item);
          refs.push(new WeakRef(copy));
          yield copy;
        }
      };
    },
  });
  // A weak reference holds its object to the end of the job that made or read it: a turn of
  // the event loop first (the in-memory trackers never leave the microtask queue on their own).
  const alive = async (): Promise<number> => {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    gc();
    return refs.filter((r) => r.deref() !== undefined).length;
  };
  return { tracker: proxy, alive, read: () => refs.length };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of items) out.push(x);
  return out;
}

async function migrate(report: EngineOptions["report"]) {
  const tinypm = createMemoryTracker({ system: "tinypm" });
  for (let n = 1; n <= STORIES; n++)
    await tinypm.create({
      kind: "story",
      title: `Story ${n}`,
      description: `What story ${n} is about, at some length. `.repeat(8),
      status: "PENDING",
      assignees: [],
      labels: [],
    });
  const listed = await collect(tinypm.list({}));
  const seen = followed(tinypm);
  const github = createMemoryTracker({ system: "github" });
  // As the last run of creates (50 at a time on this target) is sent: the runs before it are done.
  let runs = 0;
  let aliveAtLast = -1;
  const target = new Proxy(github, {
    get(t, prop, receiver) {
      const value = Reflect.get(t, prop, receiver) as unknown;
      if (prop !== "createMany" || typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        if (++runs === STORIES / 50) aliveAtLast = await seen.alive();
        return (value as (...a: unknown[]) => unknown).apply(t, args);
      };
    },
  });
  const run = await runEngine({
    mode: "migrate",
    job: { name: "release", direction: "to-target", conflicts: "manual", onDelete: "close" },
    targetSystem: "github",
    tinypm: seen.tracker,
    target,
    mappingSpec: loadMapping("mappings/github.yaml"),
    state,
    lanes: createLanes({ limits: { tinypm: { concurrency: 1 }, github: { concurrency: 1 } } }),
    now: () => NOW,
    ...(report !== undefined && { report }),
  });
  return { run, read: seen.read(), runs, aliveAtLast, aliveAfter: await seen.alive(), listed };
}

describe("a real run's report detail", () => {
  it("summary: no item as read is held, and the report has no actions", async () => {
    const { run, read, runs, aliveAtLast, aliveAfter } = await migrate("summary");
    expect(read).toBe(STORIES);
    expect(runs).toBe(STORIES / 50);
    expect(run.summary.created).toBe(STORIES);
    // Not even the last run of creates holds an item as tinyPM's tracker gave it.
    expect(aliveAtLast).toBe(0);
    expect(aliveAfter).toBe(0);
    expect(run.planKept).toBe(false);
    expect(run.plan.actions).toEqual([]);
    // The events stay for what reads them (the summary, `undo`'s record, `serve`).
    expect(run.events.filter((e) => e.type === "created")).toHaveLength(STORIES);
    expect(() => toReport(run)).toThrow(/kept no actions to report/);
  });

  it("full (the default): every item is kept for the report, packed, and reads back whole", async () => {
    const { run, aliveAtLast, aliveAfter, listed } = await migrate(undefined);
    expect(aliveAtLast).toBe(0);
    expect(aliveAfter).toBe(0);
    expect(run.planKept).toBe(true);
    expect(toReport(run).items).toHaveLength(STORIES);
    const sources = run.plan.actions.flatMap((a) => (a.type === "create" ? [a.source] : []));
    expect(sources).toHaveLength(STORIES);
    expect(sources).toEqual(listed);
  });
});
