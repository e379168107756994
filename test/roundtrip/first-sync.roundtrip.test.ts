import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InterruptedError, RemoteUnavailableError } from "../../src/core/errors.js";
import type { ServerStats } from "../../src/server-kit/stats.js";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import type { RunReport } from "../../src/sync/engine.js";
import type { Tracker } from "../../src/core/tracker.js";
import { personCreates } from "./person.js";
import { startWorld, storyLinks, type World } from "./world.js";

/**
 * Issue #36: the first quiet `sync` after a `migrate` costs what a later one does. The migration
 * leaves the target's feed checkpoint (GitHub: past its own writes, with the ETag of the next
 * run's request; Jira: past the newest issue and the start of its listing, with the hashes of
 * those in the overlap window)
 * and tinyPM's tier record, so the first sync neither reads the whole target again — every
 * issue's comments with it — nor all of tinyPM.
 */
const STORIES = 40;
const ITEMS = STORIES * 5; // 4 tasks a story

/**
 * The Jira sandbox's clock runs 100 times faster: the migration's few seconds span minutes of
 * `updated` times, so that the feed's 60-second overlap window holds its last issues only, as in
 * a migration of a large project (a window holding everything reads the whole project anyway).
 */
function fastClock(): () => number {
  const t0 = Date.now();
  return () => t0 + (Date.now() - t0) * 100;
}

interface Cost {
  readonly target: number;
  readonly notModified: number;
  readonly targetWrites: number;
  readonly tinypm: number;
  readonly report: RunReport;
}

async function quietSync(world: World, fullScan = false): Promise<Cost> {
  const t0: ServerStats = world.target.server.stats();
  const p0 = world.tinypm.stats();
  const report = await world.run("sync", { fullScan });
  const t1 = world.target.server.stats();
  const p1 = world.tinypm.stats();
  return {
    target: t1.requests - t0.requests,
    notModified: t1.notModified - t0.notModified,
    targetWrites: t1.writes - t0.writes,
    tinypm: p1.requests - p0.requests,
    report,
  };
}

/**
 * Jira: the first sync lists the migration's last minute again (a person's edit in it may not
 * have been searchable when the migration listed the project): at most that window's pages
 * (100 issues each) more than a later sync, which starts past it once a minute has passed on
 * Jira's clock since a complete search began (src/adapters/jira/checkpoint.ts).
 */
function expectFirstCostsAsLater(first: Cost, later: Cost, items: number): void {
  expect(later.target).toBeLessThanOrEqual(first.target);
  expect(first.target - later.target).toBeLessThanOrEqual(Math.ceil(items / 100));
}

describe.each(["github", "jira"] as const)(
  "the first quiet sync after a migration (%s)",
  (kind) => {
    let world: World;
    let first: Cost;
    let later: Cost;
    let full: Cost;

    beforeAll(async () => {
      world = await startWorld({
        target: kind,
        generate: `stories=${String(STORIES)},tasks=4,comments=1`,
        ...(kind === "jira" && { jira: { now: fastClock() } }),
      });
      const migrated = await world.run("migrate");
      if (migrated.summary.created !== ITEMS)
        throw new Error(`the migration created ${String(migrated.summary.created)} items`);
      first = await quietSync(world);
      later = await quietSync(world);
      full = await quietSync(world, true);
    });
    afterAll(async () => {
      await world.close();
    });

    it("reads at most 0.05 target requests per item and writes nothing", () => {
      expect(first.target / ITEMS).toBeLessThanOrEqual(0.05);
      expect(first.targetWrites).toBe(0);
      for (const run of [first, later])
        expect(run.report.summary).toMatchObject({
          created: 0,
          updated: 0,
          failed: 0,
          conflicts: 0,
        });
    });

    it.runIf(kind === "github")("costs on GitHub what a later quiet sync does", () => {
      // The feed's overlap window listed again: one 304 when it fits one page; a migration's
      // last seconds can fill more (a first page's ETag then stands for nothing), read in full.
      expect(first.target).toBe(later.target);
      expect(first.target).toBeLessThanOrEqual(Math.ceil(ITEMS / 100));
      expect(first.notModified).toBe(later.notModified);
    });

    it.runIf(kind === "jira")("costs on Jira what a later quiet sync does", () => {
      // The feed's search from the migration's listing less the overlap window: the few
      // searches of a later run, fewer than reading the whole project (`sync --full`).
      expectFirstCostsAsLater(first, later, ITEMS);
      expect(first.target).toBeLessThan(full.target);
      expect(first.tinypm).toBeLessThan(full.tinypm);
      expect(full.targetWrites).toBe(0);
    });

    it("reads tinyPM by tiers, as a later quiet sync does", () => {
      expect(first.report.tinypmRead.complete).toBe(false);
      expect(first.tinypm).toBe(later.tinypm);
    });

    it("still brings a person's new issue after the migration", async () => {
      const id = await personCreates(world, "Filed after the migration");
      const report = await world.run("sync");
      // A failure says where the issue went: the run's summary and events.
      if (report.summary.created !== 1)
        throw new Error(
          `the sync created ${String(report.summary.created)}: ${JSON.stringify({
            summary: report.summary,
            events: report.events.slice(0, 40),
          })}`,
        );
      expect(report.summary).toMatchObject({ created: 1, failed: 0, conflicts: 0 });
      const state = openSqliteStore({ path: world.statePath });
      try {
        expect([...state.links("widgets")].some((l) => l.targetId === id)).toBe(true);
      } finally {
        state.close();
      }
    });
  },
);

describe("the first quiet sync after a migration (jira, Data Center)", () => {
  it("follows the checkpoint the migration left and costs what a later one does", async () => {
    const world = await startWorld({
      target: "jira",
      generate: "stories=10,tasks=2,comments=1",
      jira: { deployment: "datacenter", now: fastClock() },
    });
    try {
      await world.run("migrate");
      const state = openSqliteStore({ path: world.statePath });
      try {
        expect(state.getCheckpoint("widgets", "jira")).toBeDefined();
      } finally {
        state.close();
      }
      const first = await quietSync(world);
      const later = await quietSync(world);
      expectFirstCostsAsLater(first, later, 30);
      expect(first.targetWrites).toBe(0);
      expect(first.report.summary).toMatchObject({ created: 0, updated: 0, failed: 0 });
      expect(first.report.tinypmRead.complete).toBe(false);
    } finally {
      await world.close();
    }
  });
});

/** A person renames a story on the target (another tracker, as a person's client would). */
async function personRenames(world: World, id: string, title: string): Promise<void> {
  const person = world.targetTracker();
  try {
    await person.update({ kind: "story", id }, { set: { title } });
  } finally {
    await person.close();
  }
}

/** The story's title in tinyPM. */
async function tinypmTitle(world: World, id: string): Promise<string | undefined> {
  const tinypm = world.tinypmTracker();
  try {
    return (await tinypm.get({ kind: "story", id }))?.title;
  } finally {
    await tinypm.close();
  }
}

describe.each(["github", "jira"] as const)("a person's edit around a migration (%s)", (kind) => {
  const worlds: World[] = [];
  afterAll(async () => {
    for (const w of worlds) await w.close();
  });
  const start = async (): Promise<World> => {
    const w = await startWorld({ target: kind, generate: "stories=6,tasks=1,comments=1" });
    worlds.push(w);
    return w;
  };

  // The comment's answer moves the change time past the edit (GitHub: often to the
  // same second): both adapters compare the content with the version they hold.
  it("an edit during the migration leaves no checkpoint, and the first sync brings it", async () => {
    const world = await start();
    let edited: string | undefined;
    // The person renames the first story the migration made, just before its comment is added.
    const wrapTarget = (tracker: Tracker): Tracker => {
      const addComment: Tracker["addComment"] = async (ref, draft, opts) => {
        if (edited === undefined && ref.kind === "story") {
          edited = ref.id;
          await personRenames(world, ref.id, "Renamed during the migration");
        }
        return tracker.addComment(ref, draft, opts);
      };
      return new Proxy(tracker, {
        get: (t, prop, receiver) =>
          prop === "addComment" ? addComment : (Reflect.get(t, prop, receiver) as unknown),
      });
    };
    const migrated = await world.run("migrate", { wrapTarget });
    expect(migrated.summary).toMatchObject({ failed: 0, conflicts: 0 });
    // Said, naming the issue: the first sync's full read is no surprise.
    const said = migrated.events.flatMap((e) =>
      e.type === "checkpoint_skipped" ? [e.reason] : [],
    );
    const named = new RegExp(`^issue #?${edited ?? "?"} `);
    expect(said.map((why) => named.test(why))).toEqual([true]);
    const state = openSqliteStore({ path: world.statePath });
    try {
      expect(state.getCheckpoint("widgets", kind)).toBeUndefined();
    } finally {
      state.close();
    }
    const synced = await world.run("sync");
    expect(synced.summary).toMatchObject({ updated: 1, failed: 0, conflicts: 0 });
    const link = storyLinks(world, 6).find((l) => l.targetId === edited);
    expect(await tinypmTitle(world, link?.tinypmId ?? "")).toBe("Renamed during the migration");
  });

  /** The run's target, whose listing for the migration's checkpoint fails with `error`. */
  const checkpointFails =
    (error: Error) =>
    (tracker: Tracker): Tracker =>
      new Proxy(tracker, {
        get: (t, prop, receiver) =>
          prop === "checkpointAfterWrites"
            ? () => Promise.reject(error)
            : (Reflect.get(t, prop, receiver) as unknown),
      });

  it("a target down for the checkpoint's listing leaves a finished migration finished", async () => {
    const world = await start();
    const down = new RemoteUnavailableError(`${kind} is unavailable (503).`, {
      system: kind,
      operation: "list issues",
    });
    const migrated = await world.run("migrate", { wrapTarget: checkpointFails(down) });
    expect(migrated.summary).toMatchObject({ created: 12, failed: 0, conflicts: 0 });
    expect(migrated.events.some((e) => e.type === "checkpoint_saved")).toBe(false);
    // Said, with what failed: the first sync's full read is no surprise.
    expect(migrated.events.filter((e) => e.type === "checkpoint_skipped")).toEqual([
      { type: "checkpoint_skipped", system: kind, reason: `${kind} is unavailable (503).` },
    ]);
    const state = openSqliteStore({ path: world.statePath });
    try {
      expect(state.getCheckpoint("widgets", kind)).toBeUndefined();
      expect(state.runs({ job: "widgets", limit: 1 })[0]?.outcome).toBe("ok");
    } finally {
      state.close();
    }
    // Without the checkpoint the first sync reads everything, and finds nothing to do.
    const synced = await world.run("sync");
    expect(synced.tinypmRead.fullReason).toBe("first");
    expect(synced.summary).toMatchObject({ created: 0, updated: 0, deleted: 0, failed: 0 });
  });

  it("a stop during the checkpoint's listing still stops the run", async () => {
    const world = await start();
    const stop = new InterruptedError("Stopped by SIGINT.");
    await expect(world.run("migrate", { wrapTarget: checkpointFails(stop) })).rejects.toBe(stop);
  });

  it("an edit right after the migration is brought by the first sync", async () => {
    const world = await start();
    await world.run("migrate");
    const state = openSqliteStore({ path: world.statePath });
    try {
      expect(state.getCheckpoint("widgets", kind)).toBeDefined();
    } finally {
      state.close();
    }
    const [link] = storyLinks(world, 6);
    await personRenames(world, link?.targetId ?? "", "Renamed after the migration");
    const synced = await world.run("sync");
    expect(synced.summary).toMatchObject({ updated: 1, failed: 0, conflicts: 0 });
    expect(await tinypmTitle(world, link?.tinypmId ?? "")).toBe("Renamed after the migration");
  });
});

describe("a migration that leaves a person's issue for sync (github)", () => {
  let world: World;
  afterAll(async () => {
    await world.close();
  });

  it("stores no checkpoint: the first sync reads everything and imports the issue", async () => {
    world = await startWorld({ target: "github", generate: "stories=3,tasks=1,comments=0" });
    const id = await personCreates(world, "Filed before the migration");
    const migrated = await world.run("migrate");
    expect(migrated.plan.actions.some((a) => a.type === "skip" && a.reason === "direction")).toBe(
      true,
    );
    const state = openSqliteStore({ path: world.statePath });
    try {
      expect(state.getCheckpoint("widgets", "github")).toBeUndefined();
    } finally {
      state.close();
    }
    const report = await world.run("sync");
    expect(report.summary.created).toBe(1);
    const after = openSqliteStore({ path: world.statePath });
    try {
      expect([...after.links("widgets")].some((l) => l.targetId === id)).toBe(true);
    } finally {
      after.close();
    }
  });
});
