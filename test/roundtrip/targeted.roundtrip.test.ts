import { afterEach, describe, expect, it } from "vitest";
import type { Tracker } from "../../src/core/tracker.js";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import type { RunReport } from "../../src/sync/engine.js";
import { startWorld, type World } from "./world.js";

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

interface Linked {
  readonly world: World;
  readonly target: Tracker;
  /** tinyPM story id → target id, for the linked stories. */
  readonly stories: ReadonlyMap<string, string>;
}

async function linkedWorld(kind: "github" | "jira", stories: number): Promise<Linked> {
  const world = await startWorld({
    target: kind,
    generate: `stories=${stories},tasks=1,comments=0`,
  });
  const target = world.targetTracker();
  open.push(async () => {
    await target.close();
    await world.close();
  });
  await world.run("migrate");
  await world.run("sync");
  const state = openSqliteStore({ path: world.statePath });
  const links = [...state.links("widgets")].filter((l) => l.kind === "story");
  state.close();
  return { world, target, stories: new Map(links.map((l) => [l.tinypmId, l.targetId])) };
}

const requests = (w: World): { tinypm: number; target: number } => ({
  tinypm: w.tinypm.stats().requests,
  target: w.target.server.stats().requests,
});

/** Renames a story on the target, runs the webhook's run for it, and counts its requests. */
async function renameAndRun(
  l: Linked,
  tinypmId: string,
): Promise<{ report: RunReport; requests: { tinypm: number; target: number }; title: string }> {
  const targetId = l.stories.get(tinypmId)!;
  const title = `Renamed on the target ${tinypmId}`;
  await l.target.update({ kind: "story", id: targetId }, { set: { title } });
  const before = requests(l.world);
  const report = await l.world.run("sync", { targetItems: [targetId] });
  const after = requests(l.world);
  return {
    report,
    requests: { tinypm: after.tinypm - before.tinypm, target: after.target - before.target },
    title,
  };
}

describe.each(["github", "jira"] as const)("a webhook's run on %s", (kind) => {
  it("reads only the named items and their counterparts: the same requests for 5 and 50 stories", async () => {
    const counts: { tinypm: number; target: number }[] = [];
    for (const n of [5, 50]) {
      const l = await linkedWorld(kind, n);
      const tinypmId = [...l.stories.keys()][0]!;
      const { report, requests, title } = await renameAndRun(l, tinypmId);
      expect(report.events.filter((e) => e.type === "failed")).toEqual([]);
      expect(report.summary.updated).toBe(1);
      expect(l.world.tinypm.store.story(Number(tinypmId))?.name).toBe(title);
      expect(report.tinypmRead.complete).toBe(false);
      expect(report.tinypmRead.fetched).toBe(1);
      counts.push(requests);
    }
    expect(counts[1]).toEqual(counts[0]);
    // A whole run reads the projects: on 50 stories it costs more than the targeted one.
    expect(counts[0]!.tinypm).toBeGreaterThan(0);
  });

  it("leaves the target's checkpoint for the next whole run, which still sees other changes", async () => {
    const l = await linkedWorld(kind, 5);
    const [a, b] = [...l.stories.keys()];
    await l.target.update({ kind: "story", id: l.stories.get(b!)! }, { set: { title: "Other" } });
    const { title } = await renameAndRun(l, a!);
    expect(l.world.tinypm.store.story(Number(a))?.name).toBe(title);
    // The webhook run did not touch the unnamed item …
    expect(l.world.tinypm.store.story(Number(b))?.name).not.toBe("Other");
    // … and the next scheduled run picks it up from the unchanged checkpoint.
    await l.world.run("sync");
    expect(l.world.tinypm.store.story(Number(b))?.name).toBe("Other");
  });

  it("unions several named items, and mirrors a named item deleted on the target", async () => {
    const l = await linkedWorld(kind, 5);
    const [a, b] = [...l.stories.keys()];
    await l.target.update({ kind: "story", id: l.stories.get(a!)! }, { set: { title: "A2" } });
    await l.target.update({ kind: "story", id: l.stories.get(b!)! }, { set: { title: "B2" } });
    const report = await l.world.run("sync", {
      targetItems: [l.stories.get(a!)!, l.stories.get(b!)!],
    });
    expect(report.summary.updated).toBe(2);
    expect(l.world.tinypm.store.story(Number(a))?.name).toBe("A2");
    expect(l.world.tinypm.store.story(Number(b))?.name).toBe("B2");
    if (kind !== "jira") return; // GitHub's REST API cannot delete an issue
    const gone = l.stories.get(a!)!;
    await l.target.delete({ kind: "story", id: gone });
    const deleted = await l.world.run("sync", { targetItems: [gone] });
    expect(deleted.summary.deleted).toBe(1);
    // onDelete "close": a story closed on tinyPM is REJECTED.
    expect(l.world.tinypm.store.story(Number(a))?.acceptanceStatus).toBe("REJECTED");
  });

  it("runs as a normal sync when a named item is new on the target", async () => {
    const l = await linkedWorld(kind, 5);
    const created = await l.target.create({
      kind: "story",
      title: "Born on the target",
      description: "",
      status: kind === "github" ? "open" : "To Do",
      assignees: [],
      labels: [],
    });
    const report = await l.world.run("sync", { targetItems: [created.id] });
    expect(report.summary.created).toBe(1);
    const names = l.world.tinypm.store.storiesOf(1).map((s) => s.name);
    expect(names).toContain("Born on the target");
  });
});
