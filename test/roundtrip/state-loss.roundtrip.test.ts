import { describe, expect, it } from "vitest";
import type { WorkItem, WorkItemDraft } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import type { RunReport } from "../../src/sync/engine.js";
import { allItems, archiveOf, deleteState, rawBlock } from "./identity-kit.js";
import { startWorld, type World } from "./world.js";

/**
 * A lost state (a CI cache evicted): the links are rebuilt from the markers, and the run must
 * then do exactly what it would have done with the state — no write nobody asked for (a target's
 * own default or normalisation read as an edit), no edit lost. Items cover what a target may hold
 * differently from tinyPM: no priority (Jira's default), an empty description, padded titles,
 * fractional estimates, statuses several target values map to, labels in another order.
 */
const STORY = { kind: "story", status: "PENDING", assignees: [], labels: [] } as const;
const SEEDED: readonly WorkItemDraft[] = [
  { ...STORY, title: "No priority" },
  { ...STORY, title: "Empty description", description: "", priority: "MUST_HAVE" },
  { ...STORY, title: "  Padded title  ", priority: "SHOULD_HAVE" },
  { ...STORY, title: "Fractional estimate", estimate: 2.5, priority: "WONT_HAVE" },
  { ...STORY, title: "Small estimate", estimate: 0.333 },
  { ...STORY, title: "Accepted", status: "ACCEPTED", priority: "COULD_HAVE" },
  { ...STORY, title: "Rejected", status: "REJECTED" },
  { ...STORY, title: "Labels", labels: ["zeta", "alpha", "two words"] },
];

async function using<T>(tracker: Tracker, fn: (t: Tracker) => Promise<T>): Promise<T> {
  try {
    return await fn(tracker);
  } finally {
    await tracker.close();
  }
}

/** The seeded stories, a task of each status the project has, and two issues opened by hand. */
async function seed(world: World): Promise<void> {
  await using(world.tinypmTracker(), async (tinypm) => {
    const [head, ...rest] = SEEDED;
    if (head === undefined) throw new Error("nothing to seed");
    const first = await tinypm.create(head);
    for (const d of rest) await tinypm.create(d);
    for (const status of ["TO DO", "IN PROGRESS", "TESTING", "COMPLETED"])
      await tinypm.create({
        kind: "task",
        parentId: first.id,
        title: `Task ${status.toLowerCase()}`,
        status,
        assignees: [],
        labels: [],
      });
  });
  const jira = world.target.kind === "jira";
  await using(world.targetTracker(), async (target) => {
    await target.create({
      kind: "story",
      title: "Opened by hand, no priority",
      status: jira ? "In Progress" : "open",
      assignees: [],
      labels: ["b-label", "a-label"],
      ...(jira && { estimate: 1.5 }),
    });
    await target.create({
      kind: "story",
      title: "Opened by hand, closed",
      description: "",
      status: jira ? "Done" : "closed:completed",
      assignees: [],
      labels: [],
    });
  });
}

const changesOf = (r: RunReport): unknown[] =>
  r.plan.actions
    .filter((a) => a.type !== "skip")
    .map((a) => ({
      type: a.type,
      title: a.title,
      ...("changes" in a && { changes: a.changes }),
    }));

const noFailures = (r: RunReport): void => {
  expect(r.events.filter((e) => e.type === "failed")).toEqual([]);
};

const byNumericId = new Intl.Collator("en", { numeric: true }).compare;

async function targetState(world: World): Promise<string[]> {
  const items = await using(world.targetTracker(), allItems);
  const out: string[] = [];
  for (const i of items.sort((a, b) => byNumericId(a.id, b.id)))
    out.push(JSON.stringify(view(i)), await rawBlock(world, i.id));
  return out;
}

const view = (i: WorkItem): unknown => ({
  id: i.id,
  title: i.title,
  description: i.description ?? null,
  status: i.status,
  priority: i.priority ?? null,
  estimate: i.estimate ?? null,
  labels: [...i.labels].sort(),
});

async function findTarget(world: World, title: string): Promise<WorkItem> {
  const items = await using(world.targetTracker(), allItems);
  const found = items.find((i) => i.title.trim() === title);
  if (found === undefined) throw new Error(`no target item "${title}"`);
  return found;
}

async function findTinypm(world: World, title: string): Promise<WorkItem> {
  const items = await using(world.tinypmTracker(), allItems);
  const found = items.find((i) => i.title.trim() === title);
  if (found === undefined) throw new Error(`no tinyPM item "${title}"`);
  return found;
}

describe.each(["github", "jira"] as const)("a lost state on %s", (kind) => {
  it("rebuilt links plan nothing; a run changes nothing; later edits on each side still flow", async () => {
    const world = await startWorld({ target: kind, generate: "stories=2,tasks=1", seed: 4 });
    try {
      await seed(world);
      noFailures(await world.run("migrate"));
      noFailures(await world.run("sync"));
      expect(changesOf(await world.run("sync", { dryRun: true }))).toEqual([]);
      const tinypmBefore = await archiveOf(world.tinypm);
      const targetBefore = await targetState(world);

      // The cache is gone: the plan on rebuilt links is as empty as the one the state gave.
      deleteState(world.statePath);
      const plan = await world.run("sync", { dryRun: true });
      expect(plan.identity.rebuilt.length).toBeGreaterThan(SEEDED.length);
      expect(changesOf(plan)).toEqual([]);
      const run = await world.run("sync");
      noFailures(run);
      expect(changesOf(run)).toEqual([]);
      expect(await archiveOf(world.tinypm)).toEqual(tinypmBefore);
      expect(await targetState(world)).toEqual(targetBefore);

      // Lost again, then a person edits each side: both edits flow, nothing else moves.
      deleteState(world.statePath);
      const noPriority = await findTinypm(world, "No priority");
      await using(world.tinypmTracker(), (t) =>
        t.update(
          { kind: "story", id: noPriority.id },
          { set: { priority: "MUST_HAVE" }, base: noPriority },
        ),
      );
      const padded = await findTarget(world, "Padded title");
      const handOpened = await findTarget(world, "Opened by hand, no priority");
      await using(world.targetTracker(), async (t) => {
        await t.update({ kind: "story", id: padded.id }, { set: { title: "Renamed on target" } });
        await t.update(
          { kind: "story", id: handOpened.id },
          { set: { labels: [...handOpened.labels, "c-label"] } },
        );
      });
      const edits = await world.run("sync");
      noFailures(edits);
      expect(edits.summary.conflicts).toBe(0);
      const moved = changesOf(edits) as { title: string; changes: { field: string }[] }[];
      expect(
        moved.map((a) => `${a.title.trim()}: ${a.changes.map((c) => c.field).join(",")}`).sort(),
      ).toEqual([
        "No priority: priority",
        "Opened by hand, no priority: labels",
        "Padded title: title",
      ]);
      expect((await findTarget(world, "No priority")).priority).toBe(
        kind === "jira" ? "Highest" : undefined,
      );
      expect((await findTinypm(world, "Renamed on target")).title).toBe("Renamed on target");
      expect((await findTinypm(world, "Opened by hand, no priority")).labels).toContain("c-label");
      expect(changesOf(await world.run("sync", { dryRun: true }))).toEqual([]);

      // And once more without the state: still nothing to do.
      deleteState(world.statePath);
      expect(changesOf(await world.run("sync", { dryRun: true }))).toEqual([]);
    } finally {
      await world.close();
    }
  }, 300_000);
});

describe.each(["github", "jira"] as const)("a lost state after a migrate rerun on %s", (kind) => {
  it("a person's target edit the rerun kept still reaches tinyPM on the sync after the loss", async () => {
    const world = await startWorld({ target: kind, generate: "stories=2,tasks=0,comments=0" });
    try {
      noFailures(await world.run("migrate"));
      const [first] = (await using(world.targetTracker(), allItems)).filter(
        (i) => i.kind === "story",
      );
      if (first === undefined) throw new Error("no story migrated");
      const tinypmId = first.marker?.tinypmId ?? "";
      // A person labels the issue; tinyPM retitles the same story.
      await using(world.targetTracker(), (t) =>
        t.update(
          { kind: "story", id: first.id },
          { set: { labels: [...first.labels, "person-label"] } },
        ),
      );
      await using(world.tinypmTracker(), (t) =>
        t.update({ kind: "story", id: tinypmId }, { set: { title: "Renamed in tinyPM" } }),
      );
      // The rerun writes the title (and the block, with it) and keeps the person's label: the
      // block says the target holds the label as of the last sync, not the person's (no write
      // to correct it either).
      const rerun = await world.run("migrate");
      noFailures(rerun);
      expect(rerun.events.filter((e) => e.type === "marker_rewritten")).toEqual([]);
      expect((await findTarget(world, "Renamed in tinyPM")).labels).toContain("person-label");

      // The cache is gone: the label is still an edit made on the target, and reaches tinyPM.
      deleteState(world.statePath);
      const sync = await world.run("sync");
      noFailures(sync);
      expect(sync.summary.conflicts).toBe(0);
      const story = await findTinypm(world, "Renamed in tinyPM");
      expect(story.labels).toContain("person-label");
      expect((await findTarget(world, "Renamed in tinyPM")).labels).toContain("person-label");
      expect(changesOf(await world.run("sync", { dryRun: true }))).toEqual([]);
    } finally {
      await world.close();
    }
  }, 180_000);
});
