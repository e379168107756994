import { describe, expect, it } from "vitest";
import type { WorkItem } from "../../src/core/model.js";
import { startReferenceServer } from "../../src/reference-server/index.js";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import type { RunReport } from "../../src/sync/engine.js";
import {
  allItems,
  archiveOf,
  countItems,
  deleteState,
  everythingOnTarget,
  freshStatePath,
  openIssue,
  plantLegacyBlock,
  rawBlock,
  stripBlock,
} from "./identity-kit.js";
import { startWorld, type World } from "./world.js";

/**
 * Issue 13, end to end with the bundled servers, for GitHub and Jira: items are counted on both
 * sides and tinyPM `export` archives compared — nothing lost, nothing duplicated, nothing changed
 * that nobody edited.
 */
const DATA = "stories=4,tasks=1,comments=1";

const noFailures = (r: RunReport): void => {
  expect(r.events.filter((e) => e.type === "failed")).toEqual([]);
};

async function withWorld(kind: "github" | "jira", fn: (w: World) => Promise<void>): Promise<void> {
  const world = await startWorld({ target: kind, generate: DATA, seed: 1 });
  try {
    await fn(world);
  } finally {
    await world.close();
  }
}

async function using<T>(
  tracker: ReturnType<World["targetTracker"]>,
  fn: (t: typeof tracker) => Promise<T>,
): Promise<T> {
  try {
    return await fn(tracker);
  } finally {
    await tracker.close();
  }
}

const ourStory = (items: readonly WorkItem[], job: string): WorkItem => {
  const found = items.find(
    (i) => i.kind === "story" && i.marker?.job === job && i.marker.origin === "tinypm",
  );
  if (found === undefined) throw new Error(`no story of job ${job}`);
  return found;
};

describe.each(["github", "jira"] as const)("identity on %s", (kind) => {
  it("two jobs on one target, syncs both ways: neither imports, adopts or updates the other's", async () => {
    await withWorld(kind, async (world) => {
      const other = await startReferenceServer({ generate: "stories=3,tasks=1", seed: 2 });
      const w8 = { name: "w8", tinypmServer: other };
      try {
        await world.run("migrate");
        // The migration reads the whole target: it finds job widgets' 8 items foreign. (Its first
        // sync may read only the feed: the migration leaves the feed's checkpoint.)
        const migrateB = await world.run("migrate", w8);
        expect(migrateB.identity.foreign).toHaveLength(8);
        const [a0, b0] = [await archiveOf(world.tinypm), await archiveOf(other)];
        const onTarget = await using(world.targetTracker(), countItems);
        expect(onTarget).toEqual({ story: 4 + 3, task: 4 + 3 });

        // Both syncs in both directions: nothing of the other job is proposed or done.
        const planA = await world.run("sync", { dryRun: true });
        expect(planA.plan.actions.filter((a) => a.type === "create")).toEqual([]);
        expect(planA.identity.foreign).toHaveLength(6);
        const syncA = await world.run("sync");
        const syncB = await world.run("sync", w8);
        for (const r of [syncA, syncB]) {
          noFailures(r);
          expect(r.summary.created).toBe(0);
        }
        expect(syncB.identity.foreign).toEqual([]);
        const foreignSkips = syncA.plan.actions.filter(
          (a) => a.type === "skip" && a.reason === "foreign",
        );
        expect(foreignSkips).toHaveLength(6);
        expect(await archiveOf(world.tinypm)).toEqual(a0);
        expect(await archiveOf(other)).toEqual(b0);

        // People edit one issue of each job and open a new one; each job carries only its own.
        const items = await using(world.targetTracker(), allItems);
        const mineA = ourStory(items, "widgets");
        const mineB = ourStory(items, "w8");
        await using(world.targetTracker(), async (t) => {
          await t.update(
            { kind: "story", id: mineA.id },
            { set: { title: "A, edited on the target" } },
          );
          await t.update(
            { kind: "story", id: mineB.id },
            { set: { title: "B, edited on the target" } },
          );
          await openIssue(world, t, "Opened by a person");
        });
        const r1 = await world.run("sync");
        const r2 = await world.run("sync", w8);
        noFailures(r1);
        noFailures(r2);
        expect(r1.summary.created).toBe(1);
        expect(r2.summary.created).toBe(0);

        const [a1, b1] = [await archiveOf(world.tinypm), await archiveOf(other)];
        const names = (a: typeof a0): string[] => a.stories.map((s) => s.name).sort();
        const renamed = (a: typeof a0, from: string, to: string): string[] =>
          a.stories
            .map((s) => (s.name === from ? to : s.name))
            .concat()
            .sort();
        expect(names(a1)).toEqual(
          [...renamed(a0, mineA.title, "A, edited on the target"), "Opened by a person"].sort(),
        );
        expect(names(b1)).toEqual(renamed(b0, mineB.title, "B, edited on the target"));
        // Nothing else of job w8's tinyPM changed.
        const rest = (a: typeof b0): unknown[] =>
          a.stories
            .filter((s) => s.name !== mineB.title && !s.name.startsWith("B, "))
            .map((s) => s);
        expect(rest(b1)).toEqual(rest(b0));
        expect(await using(world.targetTracker(), countItems)).toEqual({ story: 8, task: 7 });
      } finally {
        await other.close();
      }
    });
  });

  it("same job name on another tinyPM instance: nothing adopted, its items counted foreign", async () => {
    await withWorld(kind, async (world) => {
      const other = await startReferenceServer({ generate: DATA, seed: 2 });
      const elsewhere = { tinypmServer: other, statePath: freshStatePath() };
      try {
        await world.run("migrate");
        await world.run("sync");
        const a0 = await archiveOf(world.tinypm);
        const plan = await world.run("migrate", { ...elsewhere, dryRun: true });
        const types = plan.plan.actions.map((a) => a.type);
        expect(types.filter((t) => t === "adopt")).toEqual([]);
        expect(types.filter((t) => t === "create")).toHaveLength(8);
        expect(plan.identity.foreign).toHaveLength(8);
        noFailures(await world.run("migrate", elsewhere));
        expect(await using(world.targetTracker(), countItems)).toEqual({ story: 8, task: 8 });
        // The first instance's job sees the second's copies as foreign and changes nothing.
        const again = await world.run("sync");
        noFailures(again);
        expect(again.summary).toMatchObject({ created: 0, updated: 0, deleted: 0 });
        expect(await archiveOf(world.tinypm)).toEqual(a0);
      } finally {
        await other.close();
      }
    });
  });

  it("a removed block is never data: nothing cleared, the block comes back", async () => {
    await withWorld(kind, async (world) => {
      await world.run("migrate");
      await world.run("sync");
      const a0 = await archiveOf(world.tinypm);
      const items = await using(world.targetTracker(), allItems);
      const stories = items.filter((i) => i.kind === "story");
      const [first, second] = [stories[0], stories[1]];
      if (first === undefined || second === undefined) throw new Error("two stories expected");
      await stripBlock(world, first.id);
      await stripBlock(world, second.id);

      const quiet = await world.run("sync");
      noFailures(quiet);
      expect(await archiveOf(world.tinypm)).toEqual(a0);
      // GitHub's feed returns both (their bodies changed). Deleting a Jira property changes no
      // field: whether the feed's overlap window returns them depends on the clock.
      expect(kind === "jira" || quiet.identity.blockless === 2).toBe(true);

      // The next write to the item puts the block back (and changes only what was edited).
      await using(world.targetTracker(), (t) =>
        t.update({ kind: "story", id: first.id }, { set: { title: "Retitled on the target" } }),
      );
      noFailures(await world.run("sync"));
      expect(await rawBlock(world, first.id)).toMatch(/"job":"widgets"/);
      const a1 = await archiveOf(world.tinypm);
      const edited = a0.stories.map((s) =>
        s.name === first.title ? { ...s, name: "Retitled on the target" } : s,
      );
      expect(a1.stories).toEqual(edited);

      // --repair-markers writes the other one back at once.
      expect(await rawBlock(world, second.id)).not.toMatch(/"job":"widgets"/);
      noFailures(await world.run("sync", { repairMarkers: true }));
      expect(await rawBlock(world, second.id)).toMatch(/"job":"widgets"/);
      expect((await archiveOf(world.tinypm)).stories).toEqual(edited);
    });
  });

  it("state deleted after a sync that imported a target-born issue: links rebuilt, zero creates", async () => {
    await withWorld(kind, async (world) => {
      await world.run("migrate");
      const born = await using(world.targetTracker(), (t) =>
        openIssue(world, t, "Born on the target"),
      );
      noFailures(await world.run("sync"));
      // The target-born issue now names the story created from it.
      const marked = await using(world.targetTracker(), (t) =>
        t.get({ kind: "story", id: born.id }),
      );
      expect(marked?.marker).toMatchObject({ job: "widgets", origin: kind, originId: born.id });
      expect(marked?.marker?.tinypmId).toBeDefined();
      expect(marked?.marker?.instance).toMatch(/^[0-9a-f]{16}$/);

      const a0 = await archiveOf(world.tinypm);
      const t0 = await using(world.targetTracker(), countItems);
      const state0 = openSqliteStore({ path: world.statePath });
      const links0 = [...state0.links("widgets")].map(
        (l) => `${l.kind}:${l.tinypmId}:${l.targetId}`,
      );
      state0.close();

      deleteState(world.statePath);
      const plan = await world.run("sync", { dryRun: true });
      expect(plan.plan.actions.filter((a) => a.type === "create")).toEqual([]);
      const run = await world.run("sync");
      noFailures(run);
      expect(run.summary.created).toBe(0);
      expect(run.identity.rebuilt).toHaveLength(links0.length);
      expect(await archiveOf(world.tinypm)).toEqual(a0);
      expect(await using(world.targetTracker(), countItems)).toEqual(t0);
      const state1 = openSqliteStore({ path: world.statePath });
      const links1 = [...state1.links("widgets")].map(
        (l) => `${l.kind}:${l.tinypmId}:${l.targetId}`,
      );
      expect(state1.runs({ job: "widgets", limit: 1 })[0]?.counts.linksRebuilt).toBe(links0.length);
      state1.close();
      expect(links1.sort()).toEqual(links0.sort());

      // An edit on either side after the loss still flows the right way.
      const story = (await using(world.targetTracker(), allItems)).find((i) => i.kind === "story");
      if (story === undefined) throw new Error("no story");
      deleteState(world.statePath);
      await using(world.targetTracker(), (t) =>
        t.update({ kind: "story", id: story.id }, { set: { title: "Edited after the loss" } }),
      );
      noFailures(await world.run("sync"));
      const a1 = await archiveOf(world.tinypm);
      expect(a1.stories.map((s) => s.name)).toContain("Edited after the loss");
      expect(a1.stories).toHaveLength(a0.stories.length);
    });
  });

  it("state and block both lost: matched by title and parent, an ambiguous match parked", async () => {
    await withWorld(kind, async (world) => {
      await world.run("migrate");
      await world.run("sync");
      const a0 = await archiveOf(world.tinypm);
      const t0 = await using(world.targetTracker(), countItems);
      const items = await using(world.targetTracker(), allItems);
      const story = items.find((i) => i.kind === "story");
      const task = items.find((i) => i.kind === "task");
      if (story === undefined || task === undefined) throw new Error("a story and a task expected");
      await stripBlock(world, story.id);
      await stripBlock(world, task.id);
      deleteState(world.statePath);
      const run = await world.run("sync");
      noFailures(run);
      expect(run.summary.created).toBe(0);
      expect(run.identity.rebuilt.filter((r) => r.how === "content")).toHaveLength(2);
      expect(await archiveOf(world.tinypm)).toEqual(a0);
      expect(await using(world.targetTracker(), countItems)).toEqual(t0);

      // Two unmarked issues with one tinyPM title: parked, never guessed.
      const other = items.filter((i) => i.kind === "story")[1];
      if (other === undefined) throw new Error("a second story expected");
      await stripBlock(world, other.id);
      await using(world.targetTracker(), (t) => openIssue(world, t, other.title));
      deleteState(world.statePath);
      const parked = await world.run("sync", { direction: "to-target" });
      expect(parked.identity.ambiguous).toHaveLength(1);
      expect(parked.summary.created).toBe(0);
      const state = openSqliteStore({ path: world.statePath });
      expect(state.failures("widgets").map((f) => f.code)).toContain("identity_ambiguous");
      state.close();
      expect(await archiveOf(world.tinypm)).toEqual(a0);
      expect(await using(world.targetTracker(), countItems)).toEqual({
        ...t0,
        story: t0.story + 1,
      });
    });
  });

  it("migrating into a target with other people's issues leaves them untouched", async () => {
    await withWorld(kind, async (world) => {
      const tinypmStories = (await archiveOf(world.tinypm)).stories;
      const sameTitle = tinypmStories[0]?.name ?? "x";
      const before = await using(world.targetTracker(), async (t) => [
        await openIssue(world, t, "Someone else's issue"),
        await openIssue(world, t, sameTitle),
      ]);
      // One issue of another tool's job, carrying its marker.
      const foreign = await using(world.targetTracker(), (t) =>
        t.create({
          kind: "story",
          title: "Another job's issue",
          status: kind === "github" ? "open" : "To Do",
          assignees: [],
          labels: [],
          metadata: {},
          marker: { job: "other-job", origin: "tinypm", originKind: "story", originId: "1" },
        }),
      );
      const a0 = await archiveOf(world.tinypm);
      const m = await world.run("migrate");
      noFailures(m);
      expect(m.summary.created).toBe(8);
      const after = await using(world.targetTracker(), allItems);
      for (const b of [...before, foreign]) {
        const now = after.find((i) => i.id === b.id);
        expect(now?.title).toBe(b.title);
        expect(now?.description).toBe(b.description);
        expect(now?.marker).toEqual(b.marker);
      }
      expect(await archiveOf(world.tinypm)).toEqual(a0);
      // A two-way sync imports the unmarked ones (its direction says so), never the foreign one.
      const s = await world.run("sync");
      noFailures(s);
      expect(s.summary.created).toBe(2);
      const names = (await archiveOf(world.tinypm)).stories.map((x) => x.name);
      expect(names).not.toContain("Another job's issue");
      expect(names.filter((n) => n === sameTitle)).toHaveLength(2);
      expect(names).toContain("Someone else's issue");
    });
  });
  it("no personal data in markers or notes; an older block with an email is rewritten", async () => {
    await withWorld(kind, async (world) => {
      noFailures(await world.run("migrate"));
      const users = await using(world.tinypmTracker(), (t) => t.listUsers());
      const emails = users.flatMap((u) => (u.email === undefined ? [] : [u.email]));
      const names = users.flatMap((u) => (u.name?.includes(" ") === true ? [u.name] : []));
      expect(emails.length).toBeGreaterThan(0);
      const items = await using(world.targetTracker(), allItems);
      expect(items.some((i) => i.comments.length > 0)).toBe(true);
      const shown = await everythingOnTarget(world, items);
      for (const e of emails) expect(shown).not.toContain(e);
      for (const n of names) expect(shown).not.toContain(n);

      const story = items.find((i) => i.kind === "story");
      if (story?.marker === undefined) throw new Error("a marked story expected");
      await plantLegacyBlock(world, story.id);
      expect(await rawBlock(world, story.id)).toContain("leak@example.com");
      await using(world.tinypmTracker(), (t) =>
        t.update(
          { kind: "story", id: story.marker?.originId ?? "?" },
          { set: { title: "Renamed in tinyPM" } },
        ),
      );
      noFailures(await world.run("sync"));
      const block = await rawBlock(world, story.id);
      expect(block).not.toContain("leak@example.com");
      expect(block).not.toContain("Leak Person");
      expect(block).toMatch(/"job":"widgets"/);
    });
  });
});
