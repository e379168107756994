import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ItemRef, WorkItemPatch } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import { openSqliteStore, type LinkRecord } from "../../src/state/sqlite-store.js";
import { startWorld, storyLinks, type World } from "./world.js";

// A person edits an issue between the run's read and its write. GitHub's PATCH and Jira's PUT take
// no If-Match: the adapter reads the issue right before writing and refuses a field a person
// changed since the run read it, so the person's edit is never overwritten.
describe.each(["github", "jira"] as const)(
  "a person's edit on %s before the run's write",
  (kind) => {
    let world: World;
    let stories: LinkRecord[] = [];

    beforeAll(async () => {
      world = await startWorld({ target: kind, generate: "stories=3,tasks=0,comments=0" });
      await world.run("migrate");
      stories = storyLinks(world, 2);
    });
    afterAll(async () => {
      await world.close();
    });

    /** The run's target tracker, with the person's edit made just before its first update of `id`. */
    const editFirst =
      (id: string, edit: () => Promise<unknown>, seen: { edits: number; updates: number }) =>
      (tracker: Tracker): Tracker => {
        const update = async (ref: ItemRef, patch: WorkItemPatch, opts?: unknown) => {
          if (ref.id === id) {
            seen.updates++;
            if (seen.edits === 0) {
              seen.edits++;
              await edit();
            }
          }
          return tracker.update(ref, patch, opts as Parameters<Tracker["update"]>[2]);
        };
        return new Proxy(tracker, {
          get: (t, prop, receiver) =>
            prop === "update" ? update : (Reflect.get(t, prop, receiver) as unknown),
        });
      };

    const state = () => openSqliteStore({ path: world.statePath });

    it("the same field: nothing is overwritten, the next run parks the conflict", async () => {
      const link = stories[0];
      if (link === undefined) throw new Error("no story link");
      const tinypmRef = { kind: "story", id: link.tinypmId } as const;
      const targetRef = { kind: "story", id: link.targetId } as const;
      const tinypm = world.tinypmTracker();
      const person = world.targetTracker();
      const byPerson = "Rewritten by a person during the run.";
      try {
        await tinypm.update(tinypmRef, { set: { description: "Changed in tinyPM." } });
        const baseBefore = (() => {
          const s = state();
          try {
            return [...s.links("widgets")].find((l) => l.tinypmId === link.tinypmId)?.base;
          } finally {
            s.close();
          }
        })();
        const seen = { edits: 0, updates: 0 };
        const report = await world.run("sync", {
          wrapTarget: editFirst(
            link.targetId,
            () => person.update(targetRef, { set: { description: byPerson } }),
            seen,
          ),
        });
        expect(seen.edits).toBe(1);
        // Skipped with a clear reason, the person's edit untouched, the link's base where it was.
        const failed = report.events.filter((e) => e.type === "failed");
        expect(failed).toHaveLength(1);
        expect(failed[0]).toMatchObject({ type: "failed", code: "conflict" });
        expect(failed[0]?.type === "failed" && failed[0].message).toContain("description");
        expect((await person.get(targetRef))?.description).toBe(byPerson);
        expect((await tinypm.get(tinypmRef))?.description).toBe("Changed in tinyPM.");
        const s1 = state();
        try {
          const now = [...s1.links("widgets")].find((l) => l.tinypmId === link.tinypmId);
          expect(now?.base).toEqual(baseBefore);
          expect(s1.failures("widgets").map((f) => f.code)).toEqual(["conflict"]);
        } finally {
          s1.close();
        }

        // The next run re-plans the item: both sides changed the description → a manual conflict.
        const second = await world.run("sync");
        expect(second.summary).toMatchObject({ failed: 0, conflicts: 1 });
        expect((await person.get(targetRef))?.description).toBe(byPerson);
        expect((await tinypm.get(tinypmRef))?.description).toBe("Changed in tinyPM.");
        const s2 = state();
        try {
          expect(s2.failures("widgets")).toEqual([]);
          const open = s2.conflicts({ job: "widgets", status: "open" });
          expect(open.map((c) => [c.tinypmId, c.field])).toEqual([[link.tinypmId, "description"]]);
        } finally {
          s2.close();
        }
      } finally {
        await tinypm.close();
        await person.close();
      }
    }, 120_000);

    // Only the hidden block changes (a tinyPM field kept in metadata): GitHub's body is rebuilt, and
    // must carry the description the issue holds now, not the one the run read.
    it.runIf(kind === "github")(
      "a body rebuilt for its hidden block keeps the description a person just wrote",
      async () => {
        const link = stories[1];
        if (link === undefined) throw new Error("no second story link");
        const tinypmRef = { kind: "story", id: link.tinypmId } as const;
        const targetRef = { kind: "story", id: link.targetId } as const;
        const tinypm = world.tinypmTracker();
        const person = world.targetTracker();
        const byPerson = "A person's description, written during the run.";
        try {
          const before = await person.get(targetRef);
          const position = ((await tinypm.get(tinypmRef))?.position ?? 0) + 7;
          await tinypm.update(tinypmRef, { set: { position } });
          const seen = { edits: 0, updates: 0 };
          const report = await world.run("sync", {
            wrapTarget: editFirst(
              link.targetId,
              () => person.update(targetRef, { set: { description: byPerson } }),
              seen,
            ),
          });
          expect(seen).toEqual({ edits: 1, updates: 1 });
          expect(report.summary.failed).toBe(0);
          const after = await person.get(targetRef);
          expect(after?.description).toBe(byPerson);
          expect(after?.metadata).not.toEqual(before?.metadata);
          expect(after?.metadata.position).toBe(position);

          // The person's description is a target edit the next run brings to tinyPM.
          await world.run("sync");
          expect((await tinypm.get(tinypmRef))?.description).toBe(byPerson);
          expect((await person.get(targetRef))?.description).toBe(byPerson);
          const third = await world.run("sync");
          expect(third.summary.updated).toBe(0);
        } finally {
          await tinypm.close();
          await person.close();
        }
      },
      120_000,
    );
  },
);
