import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ItemRef, WorkItem } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import type { LinkRecord } from "../../src/state/sqlite-store.js";
import { startWorld, storyLinks, type World } from "./world.js";

// A person edits an issue while a run is writing to it. The write's answer is the whole issue as
// it is now, the person's edit included; the run must not take that edit into the link's base as
// if it had been synced, or the next run finds nothing changed and the edit never reaches tinyPM.
describe.each(["github", "jira"] as const)("an edit on %s made during the run's write", (kind) => {
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

  const title = async (tracker: Tracker, ref: ItemRef): Promise<string | undefined> => {
    const item: WorkItem | undefined = await tracker.get(ref);
    return item?.title;
  };

  it("reaches tinyPM on the next run", async () => {
    const link = stories[0];
    if (link === undefined) throw new Error("no story link");
    const tinypmRef = { kind: "story", id: link.tinypmId } as const;
    const targetRef = { kind: "story", id: link.targetId } as const;
    const tinypm = world.tinypmTracker();
    const person = world.targetTracker();
    try {
      // tinyPM's change makes the run write the issue (its description).
      await tinypm.update(tinypmRef, { set: { description: "Changed in tinyPM." } });
      let edits = 0;
      const report = await world.run("sync", {
        // The real tracker, with only `update` intercepted: the person edits just before it.
        wrapTarget: (tracker) => {
          const update: Tracker["update"] = async (ref, patch, opts) => {
            if (ref.id === link.targetId && edits === 0) {
              edits++;
              await person.update(targetRef, { set: { title: "Edited by a person mid-run" } });
            }
            return tracker.update(ref, patch, opts);
          };
          return new Proxy(tracker, {
            get: (t, prop, receiver) =>
              prop === "update" ? update : (Reflect.get(t, prop, receiver) as unknown),
          });
        },
      });
      expect(edits).toBe(1);
      expect(report.summary.failed).toBe(0);
      expect(await title(person, targetRef)).toBe("Edited by a person mid-run");

      await world.run("sync");
      expect(await title(tinypm, tinypmRef)).toBe("Edited by a person mid-run");
      expect(await title(person, targetRef)).toBe("Edited by a person mid-run");
      const third = await world.run("sync");
      expect(third.summary.updated).toBe(0);
    } finally {
      await tinypm.close();
      await person.close();
    }
  }, 120_000);
});
