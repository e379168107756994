import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ItemKind, WorkItem } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import { renderReport } from "../../src/report/render.js";
import type { LinkRecord } from "../../src/state/sqlite-store.js";
import { toReport } from "../../src/sync/report-data.js";
import { openConflicts, startWorld, storyLinks, type World } from "./world.js";

// A team migrates, people then edit the issues on the target (retitle, relabel, close), and
// someone reruns `migrate` after adding stories in tinyPM. The rerun carries tinyPM's own changes
// and the new stories, leaves every field only a person changed as it is (reported as kept), and
// does not take those edits into the base: a later two-way `sync` still carries them to tinyPM.
describe.each(["github", "jira"] as const)("migrate rerun after edits on %s", (kind) => {
  let world: World;
  let tinypm: Tracker;
  let target: Tracker;
  let stories: LinkRecord[] = [];
  const closed = kind === "github" ? "closed:completed" : "Done";

  const get = async (tracker: Tracker, k: ItemKind, id: string): Promise<WorkItem> => {
    const item = await tracker.get({ kind: k, id });
    if (item === undefined) throw new Error(`${k} ${id} is missing`);
    return item;
  };
  const pair = (i: number): LinkRecord => {
    const link = stories[i];
    if (link === undefined) throw new Error(`no story link ${String(i)}`);
    return link;
  };

  beforeAll(async () => {
    world = await startWorld({ target: kind, generate: "stories=6,tasks=0,comments=0" });
    tinypm = world.tinypmTracker();
    target = world.targetTracker();
    await world.run("migrate");
    stories = storyLinks(world, 6).sort((a, b) => Number(a.tinypmId) - Number(b.tinypmId));
  });
  afterAll(async () => {
    await tinypm.close();
    await target.close();
    await world.close();
  });

  it("keeps the target's edits, carries tinyPM's changes, and a later sync takes the edits to tinyPM", async () => {
    // People on the target: a retitle, a new label, a close.
    await target.update(
      { kind: "story", id: pair(0).targetId },
      { set: { title: "Retitled by a person" } },
    );
    const labelled = await get(target, "story", pair(1).targetId);
    await target.update(
      { kind: "story", id: pair(1).targetId },
      { set: { labels: [...labelled.labels, "person-label"] } },
    );
    await target.update({ kind: "story", id: pair(2).targetId }, { set: { status: closed } });
    // tinyPM: a change of its own, a new story, and a title changed on both sides.
    await tinypm.update(
      { kind: "story", id: pair(3).tinypmId },
      { set: { title: "Renamed in tinyPM" } },
    );
    await tinypm.create({
      kind: "story",
      title: "Added after the migration",
      status: "PENDING",
      assignees: [],
      labels: [],
    });
    await tinypm.update(
      { kind: "story", id: pair(4).tinypmId },
      { set: { title: "Both: tinyPM" } },
    );
    await target.update(
      { kind: "story", id: pair(4).targetId },
      { set: { title: "Both: target" } },
    );
    const tinypmBefore = await get(tinypm, "story", pair(0).tinypmId);

    const rerun = await world.run("migrate");
    expect(rerun.events.filter((e) => e.type === "failed")).toEqual([]);
    // The person's edits are still there; tinyPM's change and its new story arrived.
    expect((await get(target, "story", pair(0).targetId)).title).toBe("Retitled by a person");
    expect((await get(target, "story", pair(1).targetId)).labels).toContain("person-label");
    expect((await get(target, "story", pair(2).targetId)).status).toBe(closed);
    expect((await get(target, "story", pair(3).targetId)).title).toBe("Renamed in tinyPM");
    const titles: string[] = [];
    for await (const s of target.list({ kind: "story" })) titles.push(s.title);
    expect(titles).toContain("Added after the migration");
    // Both changed: a conflict, parked under the job's manual policy, nothing overwritten.
    expect((await get(target, "story", pair(4).targetId)).title).toBe("Both: target");
    expect(openConflicts(world)).toEqual([
      expect.objectContaining({ tinypmId: pair(4).tinypmId, field: "title" }),
    ]);
    // tinyPM was not written (a one-way run).
    expect((await get(tinypm, "story", pair(0).tinypmId)).title).toBe(tinypmBefore.title);

    // The report names what was kept, in every format.
    const report = toReport(rerun);
    const kept = (id: string): readonly string[] | undefined =>
      report.items.find((i) => i.targetId === id)?.kept;
    expect(kept(pair(0).targetId)).toEqual(["title"]);
    expect(kept(pair(1).targetId)).toContain("labels");
    expect(kept(pair(2).targetId)).toContain("status");
    const label = kind === "github" ? "GitHub" : "Jira";
    expect(renderReport(report, "text")).toContain(`kept on ${label}: title`);
    expect(renderReport(report, "markdown")).toContain(`Kept on ${label}: title`);
    expect(renderReport(report, "html")).toContain(`kept on ${label}: title`);
    const json = JSON.parse(renderReport(report, "json")) as {
      items: { targetId?: string; kept?: string[] }[];
    };
    expect(json.items.find((i) => i.targetId === pair(0).targetId)?.kept).toEqual(["title"]);

    // A second rerun changes nothing and still keeps the edits (the base did not absorb them).
    const again = await world.run("migrate");
    expect(again.summary.updated).toBe(0);
    expect(toReport(again).items.find((i) => i.targetId === pair(0).targetId)?.kept).toEqual([
      "title",
    ]);

    // A two-way sync carries the kept edits to tinyPM.
    const sync = await world.run("sync");
    expect(sync.events.filter((e) => e.type === "failed")).toEqual([]);
    expect((await get(tinypm, "story", pair(0).tinypmId)).title).toBe("Retitled by a person");
    expect((await get(tinypm, "story", pair(1).tinypmId)).labels).toContain("person-label");
    expect((await get(tinypm, "story", pair(2).tinypmId)).status).toBe("ACCEPTED");
    expect((await get(tinypm, "story", pair(3).tinypmId)).title).toBe("Renamed in tinyPM");
    expect(openConflicts(world)).toHaveLength(1);
    // And then all is quiet.
    const quiet = await world.run("sync");
    expect(quiet.summary.updated).toBe(0);
    expect((await get(target, "story", pair(0).targetId)).title).toBe("Retitled by a person");
  }, 180_000);
});
