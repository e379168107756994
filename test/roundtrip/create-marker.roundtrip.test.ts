import { describe, expect, it } from "vitest";
import type { Tracker } from "../../src/core/tracker.js";
import type { RunReport } from "../../src/sync/engine.js";
import { allItems, deleteState } from "./identity-kit.js";
import { startWorld, type World } from "./world.js";

/**
 * The block a Jira create writes must already say which values Jira holds its own way (its
 * default priority for an issue sent without one), so that a lost state plans nothing — without a
 * second write per item: the engine reads the default from Jira's create metadata before the
 * creates, and a target that cannot tell it has its block written again only until the run has
 * seen the answer (the first bulk call of each kind).
 */
const PROPERTY_PUT = "PUT /rest/api/3/issue/:issueIdOrKey/properties/:propertyKey";

const rewritten = (r: RunReport) =>
  r.events.flatMap((e) => (e.type === "marker_rewritten" ? [e] : []));

const changesOf = (r: RunReport): unknown[] =>
  r.plan.actions
    .filter((a) => a.type !== "skip")
    .map((a) => ({ type: a.type, title: a.title, ...("changes" in a && { changes: a.changes }) }));

/** The tracker without `createDefaults`: a target whose create metadata says nothing. */
function withoutCreateDefaults(tracker: Tracker): Tracker {
  const copy: Tracker = { ...tracker };
  delete (copy as { createDefaults?: unknown }).createDefaults;
  return copy;
}

function jira(world: World) {
  if (world.target.kind !== "jira") throw new Error("a Jira world");
  return world.target.server;
}

async function targetItems(world: World) {
  const tracker = world.targetTracker();
  try {
    return await allItems(tracker);
  } finally {
    await tracker.close();
  }
}

describe("target digests in the block a create writes (Jira)", () => {
  it("reads the default priority from create metadata: no second write, and a lost state plans nothing", async () => {
    const world = await startWorld({
      target: "jira",
      generate: "stories=3,tasks=2",
      seed: 7,
      jira: { defaultPriority: "Low" },
    });
    try {
      const migrate = await world.run("migrate");
      expect(migrate.events.filter((e) => e.type === "failed")).toEqual([]);
      expect(migrate.summary.created).toBe(9);
      // tinyPM tasks have no priority: Jira gives each the scheme's default, Low (tinyPM WONT_HAVE).
      const tasks = (await targetItems(world)).filter((i) => i.kind === "task");
      expect(tasks.map((t) => t.priority)).toEqual(Array.from({ length: 6 }, () => "Low"));
      expect(rewritten(migrate)).toEqual([]);
      expect(jira(world).stats().byRoute[PROPERTY_PUT] ?? 0).toBe(0);

      deleteState(world.statePath);
      const plan = await world.run("sync", { dryRun: true });
      expect(plan.identity.rebuilt.length).toBe(9);
      expect(changesOf(plan)).toEqual([]);
    } finally {
      await world.close();
    }
  }, 120_000);

  it("learns the default from the first answers when the target cannot tell it", async () => {
    const world = await startWorld({ target: "jira", generate: "stories=2,tasks=30", seed: 3 });
    try {
      const migrate = await world.run("migrate", {
        // A target without create metadata: the engine cannot foresee Jira's default.
        wrapTarget: (t) => withoutCreateDefaults(t),
      });
      expect(migrate.events.filter((e) => e.type === "failed")).toEqual([]);
      expect(migrate.summary.created).toBe(62);
      // The first bulk create of sub-tasks (50) had its blocks written again, counted; the
      // stories (sent with a priority) and the last 10 sub-tasks (sent after the answer) did not.
      const again = rewritten(migrate);
      expect(again.map((e) => `${e.kind}:${e.fields.join(",")}`)).toEqual(
        Array.from({ length: 50 }, () => "task:priority"),
      );
      expect(jira(world).stats().byRoute[PROPERTY_PUT] ?? 0).toBe(50);

      deleteState(world.statePath);
      const plan = await world.run("sync", { dryRun: true });
      expect(plan.identity.rebuilt.length).toBe(62);
      expect(changesOf(plan)).toEqual([]);
    } finally {
      await world.close();
    }
  }, 180_000);
});
