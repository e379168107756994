import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunReport } from "../../src/sync/engine.js";
import { editBothSides, withTracker } from "./fault-scenario.js";
import { duplicates, targetView, tinypmView, type TargetView } from "./snapshot.js";
import { startReliabilityWorld, type ReliabilityWorld } from "./world.js";

/** How far listings (GitHub) and JQL search (Jira) lag writes in the eventual world. */
const LAG_MS = 400;

interface Outcome {
  readonly reports: RunReport[];
  readonly view: TargetView;
  readonly tinypm: unknown;
  readonly lastSyncWrites: number;
}

/**
 * migrate → sync at once (listings still stale) → edits on both sides → sync at once → after
 * the lag, sync again. `settle` waits out the lag before the final sync and the views.
 */
async function scenario(world: ReliabilityWorld, settle: number): Promise<Outcome> {
  world.reset();
  const reports: RunReport[] = [];
  reports.push(await world.run("migrate"));
  reports.push(await world.run("sync"));
  await editBothSides(world);
  reports.push(await world.run("sync"));
  await delay(settle);
  reports.push(await world.run("sync"));
  await delay(settle);
  const before = world.targetWrites();
  reports.push(await world.run("sync"));
  const lastSyncWrites = world.targetWrites() - before;
  await delay(settle);
  const view = await withTracker(world.targetTracker(), targetView);
  return { reports, view, tinypm: await tinypmView(world.tinypm), lastSyncWrites };
}

describe.each(["github", "jira"] as const)("eventual consistency, tinyPM ⇄ %s", (target) => {
  let strong: ReliabilityWorld;
  let eventual: ReliabilityWorld;
  let reference: Outcome;
  let lagging: Outcome;

  beforeAll(async () => {
    const generate = "stories=8,tasks=2,comments=1";
    strong = await startReliabilityWorld({ target, generate });
    eventual = await startReliabilityWorld({ target, generate, eventualLagMs: LAG_MS });
    reference = await scenario(strong, 0);
    lagging = await scenario(eventual, LAG_MS + 100);
  });
  afterAll(async () => {
    await strong.close();
    await eventual.close();
  });

  it("the sandbox really lags: a listing right after a create does not show it", async () => {
    eventual.reset();
    const t = eventual.targetTracker();
    const status = target === "github" ? "open" : "To Do";
    try {
      const item = await t.create({
        kind: "story",
        title: "fresh",
        status,
        assignees: [],
        labels: [],
      });
      const seen = async (): Promise<string[]> => {
        const ids: string[] = [];
        for await (const page of t.changes(undefined)) {
          for (const c of page.changes) if (c.kind === "upsert") ids.push(c.item.id);
        }
        return ids;
      };
      expect(await seen()).toEqual([]);
      expect((await t.get({ kind: "story", id: item.id }))?.title).toBe("fresh");
      await delay(LAG_MS + 100);
      expect(await seen()).toEqual([item.id]);
    } finally {
      await t.close();
    }
  });

  it("runs without failures and creates no duplicates while listings lag", () => {
    for (const report of lagging.reports) {
      expect(report.events.filter((e) => e.type === "failed")).toEqual([]);
    }
    expect(duplicates(lagging.view)).toEqual([]);
  });

  it("ends where a strongly consistent service ends, and then writes nothing", () => {
    expect(Object.keys(reference.view.counts).length).toBeGreaterThan(8);
    expect(lagging.view).toEqual(reference.view);
    expect(lagging.tinypm).toEqual(reference.tinypm);
    expect(lagging.lastSyncWrites).toBe(0);
  });
});
