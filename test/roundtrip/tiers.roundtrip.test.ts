import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkItem } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import { openSqliteStore, type LinkRecord } from "../../src/state/sqlite-store.js";
import type { RunReport } from "../../src/sync/engine.js";
import { startWorld, type World } from "./world.js";

/**
 * Issue #20, tiered reads of tinyPM: closed iterations are read in full every `fullScanEvery`
 * runs, at once when their story list changes or when the target changed a linked item, and a
 * partial read never deletes anything.
 */
describe.each(["github", "jira"] as const)("tiered tinyPM reads with %s", (kind) => {
  let world: World;
  let tinypm: Tracker;
  let target: Tracker;
  let closedStories: LinkRecord[] = [];
  const EVERY = 3;

  const get = async (tracker: Tracker, id: string): Promise<WorkItem> => {
    const item = await tracker.get({ kind: "story", id });
    if (item === undefined) throw new Error(`story ${id} is missing`);
    return item;
  };
  const sync = async (job: Parameters<World["run"]>[1] = {}): Promise<RunReport> => {
    const report = await world.run("sync", { fullScanEvery: EVERY, ...job });
    expect(report.events.filter((e) => e.type === "failed")).toEqual([]);
    return report;
  };
  const link = (i: number): LinkRecord => {
    const l = closedStories[i];
    if (l === undefined) throw new Error(`no closed story link ${String(i)}`);
    return l;
  };

  beforeAll(async () => {
    world = await startWorld({ target: kind, generate: "stories=14,tasks=1,comments=0" });
    tinypm = world.tinypmTracker();
    target = world.targetTracker();
    await world.run("migrate");
    // Run 0 of the cycle reads everything (the migration's tier record may make a first sync
    // partial already: on GitHub it leaves the feed's checkpoint too).
    const first = await world.run("sync", { fullScanEvery: EVERY, fullScan: true });
    if (!first.tinypmRead.complete) throw new Error("the forced sync must read all");
    // Sprints 1 and 2 ended before today (the generator's calendar): their stories are closed.
    const closed = new Set(
      world.tinypm.store
        .storiesOf(1)
        .filter((s) => s.iterationId === 1 || s.iterationId === 2)
        .map((s) => String(s.id)),
    );
    const state = openSqliteStore({ path: world.statePath });
    closedStories = [...state.links("widgets")].filter(
      (l) => l.kind === "story" && closed.has(l.tinypmId),
    );
    state.close();
    if (closedStories.length < 4) throw new Error("too few stories in closed iterations");
  });
  afterAll(async () => {
    await tinypm.close();
    await target.close();
    await world.close();
  });

  it("picks up an edit in a closed iteration within fullScanEvery runs", async () => {
    const l = link(0);
    await tinypm.update({ kind: "story", id: l.tinypmId }, { set: { description: "Edited late" } });
    // The full read above was run 0; runs 1 and 2 leave the unchanged closed iterations out.
    for (let run = 1; run < EVERY; run++) {
      const partial = await sync();
      expect(partial.tinypmRead.complete).toBe(false);
      expect(partial.tinypmRead.sections.filter((s) => s.closed).map((s) => s.reason)).toEqual([
        "skipped",
        "skipped",
      ]);
      expect((await get(target, l.targetId)).description ?? "").not.toContain("Edited late");
    }
    const due = await sync();
    expect([due.tinypmRead.complete, due.tinypmRead.fullReason]).toEqual([true, "due"]);
    expect((await get(target, l.targetId)).description).toContain("Edited late");
  });

  it("picks it up at once when the target changed the linked item", async () => {
    const l = link(1);
    await tinypm.update({ kind: "story", id: l.tinypmId }, { set: { description: "Both sides" } });
    await target.update({ kind: "story", id: l.targetId }, { set: { title: "Retitled there" } });
    const report = await sync();
    expect(report.tinypmRead.complete).toBe(false);
    // At least the edited story (the feed may also return our own earlier writes).
    expect(report.tinypmRead.fetched).toBeGreaterThanOrEqual(1);
    expect((await get(target, l.targetId)).description).toContain("Both sides");
    expect((await get(tinypm, l.tinypmId)).title).toBe("Retitled there");
  });

  it("reads a closed iteration at once when its story list changed", async () => {
    const l = link(2);
    await tinypm.update({ kind: "story", id: l.tinypmId }, { set: { title: "Renamed late" } });
    const sprint = world.tinypm.store.story(Number(l.tinypmId))?.iterationId;
    const report = await sync();
    const section = report.tinypmRead.sections.find((s) => s.name === `Sprint ${String(sprint)}`);
    expect(section?.reason).toBe("changed");
    expect((await get(target, l.targetId)).title).toBe("Renamed late");
  });

  it("never deletes on a partial read; a full read (sync --full) does", async () => {
    const l = link(3);
    const before = (await get(target, l.targetId)).status;
    await tinypm.delete({ kind: "story", id: l.tinypmId });
    const partial = await sync({ fullScanEvery: 1000 });
    expect(partial.tinypmRead.complete).toBe(false);
    expect(partial.summary.deleted).toBe(0);
    expect((await get(target, l.targetId)).status).toBe(before);
    const full = await sync({ fullScanEvery: 1000, fullScan: true });
    expect([full.tinypmRead.complete, full.tinypmRead.fullReason]).toEqual([true, "forced"]);
    expect(full.summary.deleted).toBe(2); // the story and its task
    const deletes = full.plan.actions.flatMap((a) => (a.type === "delete" ? [a] : []));
    expect(deletes.map((d) => [d.kind, d.side, d.mode])).toEqual([
      ["story", "target", "close"],
      ["task", "target", "close"],
    ]);
    expect(deletes[0]?.link.tinypmId).toBe(l.tinypmId);
  });
});
