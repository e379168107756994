import { describe, expect, it } from "vitest";
import type { WorkItem } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import type { RunReport } from "../../src/sync/engine.js";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import { allItems, countItems, deleteState } from "./identity-kit.js";
import { personCreates } from "./person.js";
import { openConflicts, startWorld, type World } from "./world.js";

/**
 * A field edited on both sides, then the state lost (an evicted CI cache): the links rebuilt from
 * the markers must give the field conflict the state would have given — neither edit written
 * over, the conflict listed and resolvable — while the pair's other edits still flow. Both an
 * item born in tinyPM (the tool wrote the target last) and one born on the target (the tool wrote
 * tinyPM last).
 */
async function using<T>(tracker: Tracker, fn: (t: Tracker) => Promise<T>): Promise<T> {
  try {
    return await fn(tracker);
  } finally {
    await tracker.close();
  }
}

const noFailures = (r: RunReport): void => {
  expect(r.events.filter((e) => e.type === "failed")).toEqual([]);
};

const byId = async (tracker: Tracker, id: string): Promise<WorkItem> => {
  const found = (await allItems(tracker)).find((i) => i.id === id);
  if (found === undefined) throw new Error(`no item ${id}`);
  return found;
};

const writes = (r: RunReport): string[] =>
  r.plan.actions.filter((a) => a.type !== "skip").map((a) => `${a.type}: ${a.title.trim()}`);

/** The run's parked field conflicts: `tinypmId:field:tinyPM value/target value`. */
const parked = (r: RunReport): string[] =>
  r.plan.actions
    .flatMap((a) =>
      a.type === "update"
        ? a.conflicts
            .filter((c) => c.resolution === "parked")
            .map(
              (c) =>
                `${a.link.tinypmId}:${c.field}:${JSON.stringify(c.tinypm)}/${JSON.stringify(c.target)}`,
            )
        : [],
    )
    .sort();

describe.each(["github", "jira"] as const)(
  "a field edited on both sides, then the state lost, on %s",
  (kind) => {
    it("is a conflict, not an overwrite; the other edits flow; resolving it converges", async () => {
      const world: World = await startWorld({
        target: kind,
        generate: "stories=2,tasks=0,comments=0",
      });
      try {
        noFailures(await world.run("migrate"));
        const bornId = await personCreates(world, "Born on the target", "Opened by a person.");
        noFailures(await world.run("sync"));
        const targetItems = await using(world.targetTracker(), allItems);
        const copies = targetItems.filter((i) => i.marker?.origin === "tinypm");
        const [a, same] = copies;
        const born = targetItems.find((i) => i.id === bornId);
        if (a === undefined || same === undefined || born === undefined)
          throw new Error("setup: missing items");
        const aId = a.marker?.tinypmId ?? "";
        const sameId = same.marker?.tinypmId ?? "";
        const bornTinypmId = born.marker?.tinypmId ?? "";
        expect([aId, sameId, bornTinypmId].every((id) => id !== "")).toBe(true);
        const before = {
          tinypm: await using(world.tinypmTracker(), countItems),
          target: await using(world.targetTracker(), countItems),
        };

        // Both sides retitle `a` and the target-born story; tinyPM also edits a's description, the
        // target labels the target-born story and comments on `a`; both retitle `same` alike.
        await using(world.tinypmTracker(), async (t) => {
          const ta = await byId(t, aId);
          await t.update(
            { kind: "story", id: aId },
            { set: { title: "Mine (tinyPM)", description: "Rewritten in tinyPM." }, base: ta },
          );
          const tb = await byId(t, bornTinypmId);
          await t.update(
            { kind: "story", id: bornTinypmId },
            { set: { title: "Born: mine" }, base: tb },
          );
          const ts = await byId(t, sameId);
          await t.update(
            { kind: "story", id: sameId },
            { set: { title: "Agreed title" }, base: ts },
          );
        });
        await using(world.targetTracker(), async (t) => {
          await t.update({ kind: "story", id: a.id }, { set: { title: "Theirs (target)" } });
          await t.update(
            { kind: "story", id: born.id },
            { set: { title: "Born: theirs", labels: [...born.labels, "person-label"] } },
          );
          await t.update({ kind: "story", id: same.id }, { set: { title: "Agreed title" } });
          await t.addComment(
            { kind: "story", id: a.id },
            {
              author: {},
              createdAt: new Date().toISOString().slice(0, 19),
              body: "Said on the target",
            },
          );
        });

        // The cache is gone.
        deleteState(world.statePath);
        const run = await world.run("sync");
        noFailures(run);
        expect(run.identity.rebuilt.length).toBeGreaterThanOrEqual(3);
        expect(parked(run)).toEqual(
          [
            `${aId}:title:"Mine (tinyPM)"/"Theirs (target)"`,
            `${bornTinypmId}:title:"Born: mine"/"Born: theirs"`,
          ].sort(),
        );
        const open = openConflicts(world).sort((x, y) => x.tinypmId.localeCompare(y.tinypmId));
        expect(open.map((c) => [c.tinypmId, c.field, c.tinypmValue, c.targetValue]).sort()).toEqual(
          [
            [aId, "title", "Mine (tinyPM)", "Theirs (target)"],
            [bornTinypmId, "title", "Born: mine", "Born: theirs"],
          ].sort(),
        );
        // Neither edit is lost; the edits made on one side only flow; nothing is duplicated.
        const tinypmNow = async (id: string): Promise<WorkItem> =>
          using(world.tinypmTracker(), (t) => byId(t, id));
        const targetNow = async (id: string): Promise<WorkItem> =>
          using(world.targetTracker(), (t) => byId(t, id));
        expect((await tinypmNow(aId)).title).toBe("Mine (tinyPM)");
        expect((await targetNow(a.id)).title).toBe("Theirs (target)");
        expect((await targetNow(a.id)).description).toContain("Rewritten in tinyPM.");
        expect((await tinypmNow(aId)).comments.map((c) => c.body).join("\n")).toContain(
          "Said on the target",
        );
        expect((await tinypmNow(bornTinypmId)).title).toBe("Born: mine");
        expect((await targetNow(born.id)).title).toBe("Born: theirs");
        expect((await tinypmNow(bornTinypmId)).labels).toContain("person-label");
        expect([(await tinypmNow(sameId)).title, (await targetNow(same.id)).title]).toEqual([
          "Agreed title",
          "Agreed title",
        ]);
        expect(await using(world.tinypmTracker(), countItems)).toEqual(before.tinypm);
        expect(await using(world.targetTracker(), countItems)).toEqual(before.target);

        // The next run (state kept now) still parks both: nothing written over either edit.
        const again = await world.run("sync");
        noFailures(again);
        expect(again.summary.conflicts).toBe(2);
        expect(parked(again)).toEqual(parked(run));
        expect((await tinypmNow(aId)).title).toBe("Mine (tinyPM)");
        expect((await targetNow(a.id)).title).toBe("Theirs (target)");

        // `conflicts resolve`: the target's title for `a`, tinyPM's for the target-born story.
        const state = openSqliteStore({ path: world.statePath });
        for (const c of open) state.resolveConflict(c.id, c.tinypmId === aId ? "target" : "tinypm");
        state.close();
        noFailures(await world.run("sync"));
        expect(openConflicts(world)).toEqual([]);
        expect([(await tinypmNow(aId)).title, (await targetNow(a.id)).title]).toEqual([
          "Theirs (target)",
          "Theirs (target)",
        ]);
        expect([(await tinypmNow(bornTinypmId)).title, (await targetNow(born.id)).title]).toEqual([
          "Born: mine",
          "Born: mine",
        ]);
        expect(writes(await world.run("sync", { dryRun: true }))).toEqual([]);
        // Converged: a state lost once more plans nothing either.
        deleteState(world.statePath);
        const lostAgain = await world.run("sync", { dryRun: true });
        expect(writes(lostAgain)).toEqual([]);
        expect(parked(lostAgain)).toEqual([]);
      } finally {
        await world.close();
      }
    }, 300_000);
  },
);

describe.each(["github", "jira"] as const)(
  "a conflict parked, then the state lost, on %s",
  (kind) => {
    it("is found again from the marker instead of the side written last winning", async () => {
      const world = await startWorld({ target: kind, generate: "stories=1,tasks=0,comments=0" });
      try {
        noFailures(await world.run("migrate"));
        const [copy] = await using(world.targetTracker(), allItems);
        const tinypmId = copy?.marker?.tinypmId;
        if (copy === undefined || tinypmId === undefined) throw new Error("setup: no copy");
        await using(world.tinypmTracker(), async (t) => {
          const before = await byId(t, tinypmId);
          await t.update({ kind: "story", id: tinypmId }, { set: { title: "Mine" }, base: before });
        });
        await using(world.targetTracker(), (t) =>
          t.update({ kind: "story", id: copy.id }, { set: { title: "Theirs" } }),
        );
        // The title is parked; a description edited in tinyPM is written with the block, which
        // then names the title as parked.
        expect((await world.run("sync")).summary.conflicts).toBe(1);
        await using(world.tinypmTracker(), async (t) => {
          const before = await byId(t, tinypmId);
          await t.update(
            { kind: "story", id: tinypmId },
            { set: { description: "Edited later in tinyPM." }, base: before },
          );
        });
        const written = await world.run("sync");
        noFailures(written);
        expect(parked(written)).toEqual([`${tinypmId}:title:"Mine"/"Theirs"`]);
        const marked = await using(world.targetTracker(), (t) => byId(t, copy.id));
        expect(marked.marker?.base?.title).toBe("parked");
        expect(marked.description).toContain("Edited later in tinyPM.");

        deleteState(world.statePath);
        const run = await world.run("sync");
        noFailures(run);
        expect(parked(run)).toEqual([`${tinypmId}:title:"Mine"/"Theirs"`]);
        expect(openConflicts(world).map((c) => [c.field, c.tinypmValue, c.targetValue])).toEqual([
          ["title", "Mine", "Theirs"],
        ]);
        expect((await using(world.tinypmTracker(), (t) => byId(t, tinypmId))).title).toBe("Mine");
        expect((await using(world.targetTracker(), (t) => byId(t, copy.id))).title).toBe("Theirs");

        const stillOpen = openConflicts(world);
        const state = openSqliteStore({ path: world.statePath });
        for (const c of stillOpen) state.resolveConflict(c.id, "tinypm");
        state.close();
        noFailures(await world.run("sync"));
        expect((await using(world.targetTracker(), (t) => byId(t, copy.id))).title).toBe("Mine");
        expect(openConflicts(world)).toEqual([]);
        deleteState(world.statePath);
        expect(writes(await world.run("sync", { dryRun: true }))).toEqual([]);
      } finally {
        await world.close();
      }
    }, 300_000);
  },
);
