import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ItemKind, WorkItem } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import type { LinkRecord } from "../../src/state/sqlite-store.js";
import { toReport } from "../../src/sync/report-data.js";
import { openConflicts, startWorld, storyLinks, type World } from "./world.js";

/** Both directions of a sync through each sandbox: edits, new items, comments, conflicts. */
describe.each(["github", "jira"] as const)("bidirectional sync tinyPM ⇄ %s", (kind) => {
  let world: World;
  let tinypm: Tracker;
  let target: Tracker;
  let stories: LinkRecord[];

  const get = async (tracker: Tracker, k: ItemKind, id: string): Promise<WorkItem> => {
    const item = await tracker.get({ kind: k, id });
    if (item === undefined) throw new Error(`${k} ${id} is missing`);
    return item;
  };
  const retitle = (tracker: Tracker, k: ItemKind, id: string, title: string): Promise<unknown> =>
    tracker.update({ kind: k, id }, { set: { title } });
  const sync = async (job: Parameters<World["run"]>[1] = {}): Promise<void> => {
    const report = await world.run("sync", job);
    expect(report.events.filter((e) => e.type === "failed")).toEqual([]);
  };

  beforeAll(async () => {
    world = await startWorld({ target: kind, generate: "stories=8,tasks=1,comments=1" });
    tinypm = world.tinypmTracker();
    target = world.targetTracker();
    await world.run("migrate");
    await world.run("sync");
    stories = storyLinks(world, 8);
  });
  afterAll(async () => {
    await tinypm.close();
    await target.close();
    await world.close();
  });

  const pair = (i: number): LinkRecord => {
    const link = stories[i];
    if (link === undefined) throw new Error(`no story link ${String(i)}`);
    return link;
  };

  it("carries an edit on the target to tinyPM and one on tinyPM to the target", async () => {
    await retitle(target, "story", pair(0).targetId, "Renamed on the target");
    await retitle(tinypm, "story", pair(1).tinypmId, "Renamed on tinyPM");
    await sync();
    expect((await get(tinypm, "story", pair(0).tinypmId)).title).toBe("Renamed on the target");
    expect((await get(target, "story", pair(1).targetId)).title).toBe("Renamed on tinyPM");
  });

  it("turns a new issue into a story and carries new comments both ways", async () => {
    await target.create({
      kind: "story",
      title: "Born on the target",
      status: kind === "github" ? "open" : "To Do",
      assignees: [],
      labels: [],
    });
    const at = new Date().toISOString().slice(0, 19);
    await target.addComment(
      { kind: "story", id: pair(2).targetId },
      { author: {}, createdAt: at, body: "Said on the target" },
    );
    await tinypm.addComment(
      { kind: "story", id: pair(3).tinypmId },
      { author: { name: "Bob" }, createdAt: at, body: "Said on tinyPM" },
    );
    await sync();
    const titles: string[] = [];
    for await (const s of tinypm.list({ kind: "story" })) titles.push(s.title);
    expect(titles).toContain("Born on the target");
    const onTinypm = await get(tinypm, "story", pair(2).tinypmId);
    expect(onTinypm.comments.map((c) => c.body).join("\n")).toContain("Said on the target");
    const onTarget = await get(target, "story", pair(3).targetId);
    expect(onTarget.comments.map((c) => c.body).join("\n")).toContain("Said on tinyPM");
  });

  it("parks a field edited on both sides under manual, then applies `conflicts resolve`", async () => {
    const p = pair(4);
    await retitle(tinypm, "story", p.tinypmId, "Mine (tinyPM)");
    await retitle(target, "story", p.targetId, "Theirs (target)");
    const report = await world.run("sync");
    expect(report.summary.conflicts).toBe(1);
    const open = openConflicts(world);
    expect(open).toEqual([
      expect.objectContaining({
        tinypmId: p.tinypmId,
        field: "title",
        tinypmValue: "Mine (tinyPM)",
        targetValue: "Theirs (target)",
      }),
    ]);
    expect((await get(tinypm, "story", p.tinypmId)).title).toBe("Mine (tinyPM)");
    expect((await get(target, "story", p.targetId)).title).toBe("Theirs (target)");
    await sync();
    expect(openConflicts(world)).toHaveLength(1);

    const state = openSqliteStore({ path: world.statePath });
    state.resolveConflict(open[0]?.id ?? -1, "target");
    state.close();
    await sync();
    expect((await get(tinypm, "story", p.tinypmId)).title).toBe("Theirs (target)");
    expect(openConflicts(world)).toEqual([]);
  });

  it.each([
    ["tinypm", 5, "tinyPM side"],
    ["target", 6, "target side"],
    ["newest", 7, "tinyPM side"],
  ] as const)("resolves a conflict by the %s policy", async (policy, i, winner) => {
    const p = pair(i);
    await retitle(tinypm, "story", p.tinypmId, `tinyPM side ${policy}`);
    await retitle(target, "story", p.targetId, `target side ${policy}`);
    // `newest`: tinyPM keeps no change times; its change is dated halfway between the last sync
    // and the scan, so a scan an hour from now makes tinyPM's the later change.
    const later = new Date(Date.now() + 3_600_000);
    await sync({ conflicts: policy, ...(policy === "newest" ? { now: () => later } : {}) });
    const expected = `${winner} ${policy}`;
    expect((await get(tinypm, "story", p.tinypmId)).title).toBe(expected);
    expect((await get(target, "story", p.targetId)).title).toBe(expected);
  });

  it("closes the copy of a story deleted on tinyPM (onDelete: close) at the next full read", async () => {
    const p = pair(0);
    const before = await get(target, "story", p.targetId);
    const openStatus = before.status;
    await tinypm.delete({ kind: "story", id: p.tinypmId });
    // A tiered read leaves closed iterations out: it is partial and never infers a deletion.
    const partial = await world.run("sync");
    expect(partial.tinypmRead.complete).toBe(false);
    expect(partial.summary.deleted).toBe(0);
    expect((await get(target, "story", p.targetId)).status).toBe(openStatus);
    await sync({ fullScan: true });
    const status = (await get(target, "story", p.targetId)).status;
    expect(kind === "github" ? status : status.toLowerCase()).toBe(
      kind === "github" ? "closed:not_planned" : "rejected",
    );
    // The issue says why it was closed, once: a later full read does not say it again.
    const why = `Closed by tinypm-sync: story #${p.tinypmId} was deleted in tinyPM (job widgets).`;
    const said = async (): Promise<number> =>
      (await get(target, "story", p.targetId)).comments.filter((c) => c.body.includes(why)).length;
    expect(await said()).toBe(1);
    const later = await world.run("sync", { fullScan: true });
    expect(await said()).toBe(1);
    // The deleted story keeps its title in later reports (from the link's base in the state).
    const gone = toReport(later).items.find((i) => i.tinypmId === p.tinypmId);
    expect(gone).toMatchObject({ kind: "story", action: "skip", title: before.title });
  });

  it("settles: one more sync writes nothing anywhere", async () => {
    await sync();
    const targetWrites = world.target.server.stats().writes;
    const tinypmWrites = world.tinypm.stats().writes;
    const report = await world.run("sync");
    expect(report.summary).toMatchObject({ created: 0, updated: 0, failed: 0, conflicts: 0 });
    expect(world.target.server.stats().writes).toBe(targetWrites);
    expect(world.tinypm.stats().writes).toBe(tinypmWrites);
  });
});
