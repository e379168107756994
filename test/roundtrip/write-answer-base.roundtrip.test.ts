import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ItemRef, WorkItemPatch } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import { personCreates } from "./person.js";
import { startWorld, type World } from "./world.js";

// An issue a person creates on the target is imported into tinyPM, then the run writes its marker
// on the issue. The marker write's answer is the whole issue as it is after the write: a person's
// edit made between the run's read and that write is in it, and must not become the link's base
// (the next run would see the edit as already synced and never carry it to tinyPM).
describe.each(["github", "jira"] as const)(
  "a person's edit on %s between the import's read and the marker write",
  (kind) => {
    let world: World;

    beforeAll(async () => {
      world = await startWorld({ target: kind, generate: "stories=1,tasks=0,comments=0" });
      await world.run("migrate");
    });
    afterAll(async () => {
      await world.close();
    });

    /** The run's target tracker, with `edit` made right before the marker write on `id`. */
    const editBeforeMark =
      (id: () => string, edit: () => Promise<unknown>, seen: { marks: number }) =>
      (tracker: Tracker): Tracker => {
        const update = async (ref: ItemRef, patch: WorkItemPatch, opts?: unknown) => {
          if (ref.id === id() && patch.marker !== undefined && seen.marks++ === 0) await edit();
          return tracker.update(ref, patch, opts as Parameters<Tracker["update"]>[2]);
        };
        return new Proxy(tracker, {
          get: (t, prop, receiver) =>
            prop === "update" ? update : (Reflect.get(t, prop, receiver) as unknown),
        });
      };

    it("reaches tinyPM on the next run: title and comment", async () => {
      const person = world.targetTracker();
      const tinypm = world.tinypmTracker();
      try {
        const born = { id: await personCreates(world, "Born on the target") };
        const ref = { kind: "story", id: born.id } as const;
        const seen = { marks: 0 };
        const first = await world.run("sync", {
          wrapTarget: editBeforeMark(
            () => born.id,
            async () => {
              await person.update(ref, { set: { title: "Renamed by a person meanwhile" } });
              await person.addComment(ref, {
                author: { name: "someone" },
                createdAt: new Date().toISOString(),
                body: "A comment written meanwhile.",
              });
            },
            seen,
          ),
        });
        expect(seen.marks).toBe(1);
        expect(first.summary).toMatchObject({ created: 1, failed: 0 });
        const story = async () => {
          for await (const s of tinypm.list({ kind: "story" }))
            if (s.title.includes("Born on") || s.title.includes("meanwhile")) return s;
          return undefined;
        };
        expect((await story())?.title).toBe("Born on the target");
        const after = await person.get(ref);
        expect(after?.title).toBe("Renamed by a person meanwhile");
        expect(after?.marker).toBeDefined();

        // The person's edits are target changes the next run carries to tinyPM.
        const second = await world.run("sync");
        expect(second.summary).toMatchObject({ updated: 1, failed: 0, conflicts: 0 });
        const now = await story();
        expect(now?.title).toBe("Renamed by a person meanwhile");
        expect(now?.comments.map((c) => c.body.trim())).toContain("A comment written meanwhile.");
        expect((await person.get(ref))?.title).toBe("Renamed by a person meanwhile");
        const third = await world.run("sync");
        expect(third.summary).toMatchObject({ updated: 0, created: 0, failed: 0 });
      } finally {
        await person.close();
        await tinypm.close();
      }
    }, 120_000);
  },
);

// tinyPM's update is a full-document PUT followed by a read-back: a person's tinyPM edit landing
// between the two is in the read-back and must not become the link's base either.
describe("a person's tinyPM edit between the update's PUT and its read-back", () => {
  let world: World;

  beforeAll(async () => {
    world = await startWorld({ target: "github", generate: "stories=2,tasks=0,comments=0" });
    await world.run("migrate");
  });
  afterAll(async () => {
    await world.close();
  });

  it("reaches the target on the next run", async () => {
    const person = world.targetTracker();
    const tinypm = world.tinypmTracker();
    const store = world.tinypm.store;
    const replace = store.replaceStory.bind(store);
    try {
      const issues = [];
      for await (const i of person.list({ kind: "story" })) issues.push(i);
      const issue = issues[0];
      const tinypmId = issue?.marker?.originId;
      if (issue === undefined || tinypmId === undefined) throw new Error("no linked story");
      const ref = { kind: "story", id: issue.id } as const;
      await person.update(ref, { set: { title: "Retitled on GitHub" } });
      // The tool's PUT of the title lands; in the same instant a person rewrites the description.
      let edits = 0;
      store.replaceStory = (id, input) => {
        const written = replace(id, input);
        if (String(id) === tinypmId && input.name === "Retitled on GitHub" && edits++ === 0)
          return replace(id, { ...input, description: "A person's description, meanwhile." });
        return written;
      };
      const first = await world.run("sync");
      store.replaceStory = replace;
      expect(edits).toBe(1);
      expect(first.summary).toMatchObject({ updated: 1, failed: 0 });
      const tinypmRef = { kind: "story", id: tinypmId } as const;
      expect((await tinypm.get(tinypmRef))?.title).toBe("Retitled on GitHub");

      const second = await world.run("sync");
      expect(second.summary).toMatchObject({ updated: 1, failed: 0, conflicts: 0 });
      expect((await person.get(ref))?.description).toBe("A person's description, meanwhile.");
      expect((await tinypm.get(tinypmRef))?.description).toBe("A person's description, meanwhile.");
      const third = await world.run("sync");
      expect(third.summary).toMatchObject({ updated: 0, failed: 0 });
    } finally {
      store.replaceStory = replace;
      await person.close();
      await tinypm.close();
    }
  }, 120_000);
});
