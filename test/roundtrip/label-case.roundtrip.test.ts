import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkItem } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import { openSqliteStore, type LinkRecord } from "../../src/state/sqlite-store.js";
import { toReport } from "../../src/sync/report-data.js";
import { startWorld, type World } from "./world.js";

// GitHub label names are case-insensitive: a person created `backend` before the migration, and a
// tinyPM story carries the tag `Backend`. They are one label on GitHub: the migration uses it (no
// second label, no failed create), later syncs find nothing to change, and a person's label edit
// on the issue reaches tinyPM with tinyPM's own spelling of the tag kept.
describe("a tinyPM tag and a GitHub label that differ in case only", () => {
  let world: World;
  let tinypm: Tracker;
  let target: Tracker;
  let link: LinkRecord;

  const get = async (tracker: Tracker, id: string): Promise<WorkItem> => {
    const item = await tracker.get({ kind: "story", id });
    if (item === undefined) throw new Error(`story ${id} is missing`);
    return item;
  };
  const repoLabels = async (): Promise<string[]> => {
    if (world.target.kind !== "github") throw new Error("GitHub only");
    const s = world.target.server;
    const res = await fetch(`${s.url}/repos/${s.owner}/${s.repo}/labels?per_page=100`, {
      headers: { authorization: `Bearer ${s.token}`, accept: "application/vnd.github+json" },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { name: string }[]).map((l) => l.name);
  };
  const quiet = async (): Promise<void> => {
    const report = await world.run("sync");
    expect(report.summary.failed).toBe(0);
    expect(report.summary.updated).toBe(0);
    const item = toReport(report).items.find((i) => i.tinypmId === link.tinypmId);
    expect(item?.action ?? "skip").toBe("skip");
  };

  beforeAll(async () => {
    world = await startWorld({ target: "github", generate: "stories=2,tasks=0,comments=0" });
    tinypm = world.tinypmTracker();
    target = world.targetTracker();
    if (world.target.kind !== "github") throw new Error("GitHub only");
    const s = world.target.server;
    const made = await fetch(`${s.url}/repos/${s.owner}/${s.repo}/labels`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "backend", color: "123456" }),
    });
    if (made.status !== 201) throw new Error(`label create answered ${String(made.status)}`);
    const first = (await tinypm.list({ kind: "story" })[Symbol.asyncIterator]().next()).value as
      WorkItem | undefined;
    if (first === undefined) throw new Error("no story");
    await tinypm.update({ kind: "story", id: first.id }, { set: { labels: ["Backend"] } });
  });
  afterAll(async () => {
    await tinypm.close();
    await target.close();
    await world.close();
  });

  it("is one label: used by the migration, quiet afterwards, tinyPM's spelling kept both ways", async () => {
    const migrated = await world.run("migrate");
    expect(migrated.summary.failed).toBe(0);
    const state = openSqliteStore({ path: world.statePath });
    const found = [...state.links("widgets")].find((l) => l.kind === "story" && l.tinypmId === "1");
    state.close();
    if (found === undefined) throw new Error("story 1 not linked");
    link = found;
    expect((await get(tinypm, link.tinypmId)).labels).toEqual(["Backend"]);
    const issue = await get(target, link.targetId);
    expect(issue.labels.filter((l) => l.toLowerCase() === "backend")).toEqual(["backend"]);
    expect((await repoLabels()).filter((l) => l.toLowerCase() === "backend")).toEqual(["backend"]);

    await quiet();
    await quiet();
    expect((await get(tinypm, link.tinypmId)).labels).toEqual(["Backend"]);

    // A person adds a label on GitHub: it reaches tinyPM, and the tag keeps tinyPM's spelling.
    await target.update(
      { kind: "story", id: link.targetId },
      { set: { labels: [...issue.labels, "person-label"] } },
    );
    const sync = await world.run("sync");
    expect(sync.summary.failed).toBe(0);
    expect([...(await get(tinypm, link.tinypmId)).labels].sort()).toEqual([
      "Backend",
      "person-label",
    ]);
    await quiet();

    // tinyPM adds a tag: written to GitHub, the existing label reused, then quiet again.
    await tinypm.update(
      { kind: "story", id: link.tinypmId },
      { set: { labels: ["Backend", "person-label", "Frontend"] } },
    );
    const carried = await world.run("sync");
    expect(carried.summary.failed).toBe(0);
    const after = await get(target, link.targetId);
    expect(after.labels).toEqual(expect.arrayContaining(["backend", "person-label", "Frontend"]));
    expect((await repoLabels()).filter((l) => l.toLowerCase() === "backend")).toEqual(["backend"]);
    await quiet();
    expect([...(await get(tinypm, link.tinypmId)).labels].sort()).toEqual([
      "Backend",
      "Frontend",
      "person-label",
    ]);
  }, 120_000);
});
