import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkItem } from "../../src/core/model.js";
import type { RunReport } from "../../src/sync/engine.js";
import { withTracker } from "../reliability/fault-scenario.js";
import { listAll, tinypmView } from "../reliability/snapshot.js";
import { startReliabilityWorld, type ReliabilityWorld } from "../reliability/world.js";

/**
 * Issue 15: GitHub's listings and Jira's search lag writes. The sandboxes' clock is moved by hand,
 * so "right after a write" (inside the lag) and "settled" (past it) do not depend on the
 * machine's speed: every run here takes far less than the lag.
 */
const LAG_MS = 10 * 60_000;

const NEW_TITLE = "Checkout, renamed in tinyPM";
const TARGET_TEXT = "Written on the target, not yet listed.";

describe.each(["github", "jira"] as const)("stale listings on %s", (target) => {
  let world: ReliabilityWorld;
  let skew = 0;
  /** Moves the sandbox's clock past the lag: every listing shows every write from here on. */
  const settle = (): void => {
    skew += LAG_MS + 60_000;
  };

  beforeAll(async () => {
    world = await startReliabilityWorld({
      target,
      generate: "stories=4,tasks=1,comments=0",
      eventualLagMs: LAG_MS,
      sandboxNow: () => Date.now() + skew,
    });
  });
  afterAll(async () => {
    await world.close();
  });

  const tinypmStory = async (): Promise<WorkItem> => {
    const items = await withTracker(world.tinypmTracker(), listAll);
    const story = items.find((i) => i.kind === "story");
    if (story === undefined) throw new Error("the generated project has no story");
    return story;
  };
  /** The target copy of a tinyPM item, read by itself (current whatever the listings show). */
  const targetCopy = async (tinypmId: string): Promise<WorkItem> => {
    settle();
    const items = await withTracker(world.targetTracker(), listAll);
    const listed = items.find((i) => i.marker?.originId === tinypmId && i.kind === "story");
    if (listed === undefined) throw new Error(`no target copy of tinyPM story ${tinypmId}`);
    const item = await withTracker(world.targetTracker(), (t) => t.get(listed));
    if (item === undefined) throw new Error(`target story ${listed.id} is gone`);
    return item;
  };
  const writesOf = (r: RunReport): string[] =>
    r.plan.actions.filter((a) => a.type !== "skip").map((a) => a.type);
  /** Migrates and lets the listings settle, so that each test starts from a synced pair. */
  const migrated = async (): Promise<void> => {
    world.reset();
    await world.run("migrate");
    settle();
  };

  // `sync` reads the target's feed (in full the first time); `migrate` lists it in full.
  const AT_ONCE = ["sync", "migrate"] as const;

  it.each(AT_ONCE)(
    "a %s right after the migration, whose listing shows none of the new issues, deletes nothing",
    async (mode) => {
      world.reset();
      await world.run("migrate");
      const before = await tinypmView(world.tinypm);
      const report = await world.run(mode);
      expect(writesOf(report)).toEqual([]);
      expect(report.summary.deleted).toBe(0);
      expect(await tinypmView(world.tinypm)).toEqual(before);
      settle();
      const writes = world.targetWrites();
      expect(writesOf(await world.run("sync", { fullScan: true }))).toEqual([]);
      expect(world.targetWrites()).toBe(writes);
    },
  );

  it.each(AT_ONCE)(
    "a tinyPM edit written to the target is not undone by a %s whose listing still shows the old version",
    async (mode) => {
      await migrated();
      const story = await tinypmStory();
      await withTracker(world.tinypmTracker(), (t) =>
        t.update({ kind: "story", id: story.id }, { set: { title: NEW_TITLE }, base: story }),
      );
      const written = await world.run("sync");
      expect(writesOf(written)).toEqual(["update"]);
      // At once: the listing still shows the issue before our write (GitHub) or not at all (Jira).
      expect(writesOf(await world.run(mode, { fullScan: true }))).toEqual([]);
      settle();
      expect(writesOf(await world.run("sync", { fullScan: true }))).toEqual([]);
      expect((await tinypmStory()).title).toBe(NEW_TITLE);
      expect((await targetCopy(story.id)).title).toBe(NEW_TITLE);
    },
  );

  /**
   * A person edits the target's description; tinyPM's title changes; a run goes at once, while
   * the listing still shows the description before the person's edit (GitHub) or not the issue
   * at all (Jira). Returns both sides' title and description once everything settled.
   */
  const personEditThenRun = async (mode: "sync" | "migrate") => {
    await migrated();
    await world.run("sync");
    const story = await tinypmStory();
    const copy = await targetCopy(story.id);
    await withTracker(world.targetTracker(), (t) =>
      t.update({ kind: "story", id: copy.id }, { set: { description: TARGET_TEXT }, base: copy }),
    );
    await withTracker(world.tinypmTracker(), (t) =>
      t.update({ kind: "story", id: story.id }, { set: { title: NEW_TITLE }, base: story }),
    );
    await world.run(mode);
    settle();
    await world.run("sync", { fullScan: true });
    settle();
    expect(writesOf(await world.run("sync", { fullScan: true }))).toEqual([]);
    const view = (i: WorkItem) => ({ title: i.title, description: i.description?.trim() });
    return { target: view(await targetCopy(story.id)), tinypm: view(await tinypmStory()) };
  };

  it("a person's target edit not yet listed survives a sync carrying a tinyPM edit of the same item, and reaches tinyPM", async () => {
    const both = { title: NEW_TITLE, description: TARGET_TEXT };
    expect(await personEditThenRun("sync")).toEqual({ target: both, tinypm: both });
  });

  // `migrate` copies one way: the person's edit stays on the target only (as with a strongly
  // consistent service); what must not happen is the stale listing's text written over it.
  it("a person's target edit not yet listed survives a migrate carrying a tinyPM edit of the same item", async () => {
    const outcome = await personEditThenRun("migrate");
    expect(outcome.target).toEqual({ title: NEW_TITLE, description: TARGET_TEXT });
    expect(outcome.tinypm.title).toBe(NEW_TITLE);
  });
});
