import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerStats } from "../../src/server-kit/stats.js";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import type { RunReport } from "../../src/sync/engine.js";
import { personCreates } from "./person.js";
import { startWorld, type World } from "./world.js";

/**
 * Issue #36: the first quiet `sync` after a `migrate` costs what a later one does. The migration
 * leaves the target's feed checkpoint (GitHub: past its own writes, with the ETag of the next
 * run's request) and tinyPM's tier record, so the first sync neither reads the whole target
 * again — every issue's comments with it — nor all of tinyPM.
 */
const STORIES = 40;
const ITEMS = STORIES * 5; // 4 tasks a story

interface Cost {
  readonly target: number;
  readonly notModified: number;
  readonly targetWrites: number;
  readonly tinypm: number;
  readonly report: RunReport;
}

async function quietSync(world: World): Promise<Cost> {
  const t0: ServerStats = world.target.server.stats();
  const p0 = world.tinypm.stats();
  const report = await world.run("sync");
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

describe.each(["github", "jira"] as const)(
  "the first quiet sync after a migration (%s)",
  (kind) => {
    let world: World;
    let first: Cost;
    let later: Cost;

    beforeAll(async () => {
      world = await startWorld({
        target: kind,
        generate: `stories=${String(STORIES)},tasks=4,comments=1`,
      });
      const migrated = await world.run("migrate");
      if (migrated.summary.created !== ITEMS)
        throw new Error(`the migration created ${String(migrated.summary.created)} items`);
      first = await quietSync(world);
      later = await quietSync(world);
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

    it.runIf(kind === "github")("reads tinyPM by tiers, as a later quiet sync does", () => {
      expect(first.report.tinypmRead.complete).toBe(false);
      expect(first.tinypm).toBe(later.tinypm);
    });

    it.runIf(kind === "github")(
      "still brings a person's new issue after the migration",
      async () => {
        const id = await personCreates(world, "Filed after the migration");
        const report = await world.run("sync");
        expect(report.summary.created).toBe(1);
        const state = openSqliteStore({ path: world.statePath });
        try {
          expect([...state.links("widgets")].some((l) => l.targetId === id)).toBe(true);
        } finally {
          state.close();
        }
      },
    );
  },
);

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
