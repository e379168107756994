import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkItem } from "../../src/core/model.js";
import { personCreates, personReopens } from "./person.js";
import { stopAtLink } from "./stop-at-link.js";
import { startWorld, type World } from "./world.js";

// A run creates a tinyPM story's copy on the target and stops (a SIGKILL) before the link is
// recorded. Before the next run finds the copy again by its marker, a person edits the copy. The
// create wrote the title (its marker's digests say which values it wrote): a copy that no longer
// holds it was edited since, and that edit must reach tinyPM, not be overwritten by tinyPM's title.

/**
 * A story made in tinyPM, copied to the target by a run stopped (as by a SIGKILL) before its
 * link: the copies the target holds with that story's marker.
 */
async function copiedThenStopped(
  world: World,
  story: { name: string; description: string; acceptanceStatus?: "ACCEPTED" },
): Promise<{ tinypmId: string; copies: WorkItem[] }> {
  const store = world.tinypm.store;
  const made = store.createStory({
    projectId: 1,
    position: store.nextPosition(1),
    ...story,
    tags: [],
  });
  const tinypmId = String(made.id);
  const stopped = { n: 0 };
  await world
    .run("sync", { wrapState: stopAtLink({ tinypmId }, stopped), fullScan: true })
    .catch(() => undefined);
  expect(stopped.n).toBe(1);
  const copies: WorkItem[] = [];
  const person = world.targetTracker();
  try {
    for await (const i of person.list({ kind: "story" }))
      if (i.marker?.originId === tinypmId) copies.push(i);
  } finally {
    await person.close();
  }
  return { tinypmId, copies };
}

describe.each(["github", "jira"] as const)(
  "a person's edit on a %s copy found again after an interrupted create",
  (kind) => {
    let world: World;

    beforeAll(async () => {
      world = await startWorld({ target: kind, generate: "stories=1,tasks=0,comments=0" });
      await world.run("migrate");
    });
    afterAll(async () => {
      await world.close();
    });

    it("reaches tinyPM; the fields the person left alone stay as written", async () => {
      const { tinypmId, copies } = await copiedThenStopped(world, {
        name: "Made in tinyPM",
        description: "Born on tinyPM.",
      });
      const person = world.targetTracker();
      const tinypm = world.tinypmTracker();
      try {
        expect(copies.map((c) => c.title)).toEqual(["Made in tinyPM"]);
        const ref = { kind: "story", id: copies[0]?.id ?? "" } as const;
        await person.update(ref, { set: { title: "Renamed by a person after the crash" } });

        const next = await world.run("sync", { fullScan: true });
        expect(next.summary).toMatchObject({ created: 0, failed: 0, conflicts: 0 });
        const tinypmRef = { kind: "story", id: tinypmId } as const;
        expect((await tinypm.get(tinypmRef))?.title).toBe("Renamed by a person after the crash");
        expect((await person.get(ref))?.title).toBe("Renamed by a person after the crash");
        expect((await person.get(ref))?.description?.trim()).toBe("Born on tinyPM.");
        const quiet = await world.run("sync", { fullScan: true });
        expect(quiet.summary).toMatchObject({ created: 0, updated: 0, failed: 0, conflicts: 0 });
      } finally {
        await person.close();
        await tinypm.close();
      }
    }, 120_000);

    // A story accepted in tinyPM: the create closes its copy in a later call (GitHub) or
    // transitions it step by step (Jira). The run stops before the link; a person reopens the
    // copy. The next run must not take the reopened copy for a close not made yet.
    it("a copy reopened by a person after the create closed it stays open; tinyPM follows", async () => {
      const { tinypmId, copies } = await copiedThenStopped(world, {
        name: "Accepted in tinyPM",
        description: "Done already.",
        acceptanceStatus: "ACCEPTED",
      });
      const person = world.targetTracker();
      const tinypm = world.tinypmTracker();
      try {
        expect(copies).toHaveLength(1);
        const ref = { kind: "story", id: copies[0]?.id ?? "" } as const;
        const closed = copies[0]?.status;
        await personReopens(world, ref.id);
        const reopened = (await person.get(ref))?.status;
        expect(reopened).not.toBe(closed);

        const next = await world.run("sync", { fullScan: true });
        expect(next.summary).toMatchObject({ created: 0, failed: 0, conflicts: 0 });
        expect((await person.get(ref))?.status).toBe(reopened);
        const tinypmRef = { kind: "story", id: tinypmId } as const;
        expect((await tinypm.get(tinypmRef))?.status).toBe("PENDING");
        const quiet = await world.run("sync", { fullScan: true });
        expect(quiet.summary).toMatchObject({ created: 0, updated: 0, failed: 0, conflicts: 0 });
      } finally {
        await person.close();
        await tinypm.close();
      }
    }, 120_000);

    // The other way: a person's issue imported into tinyPM, the run stopped before the link. The
    // tinyPM copy is found again by its title; a person edited its description meanwhile.
    it("an imported issue's tinyPM copy edited before the next run: the edit reaches the target, the issue gets its marker", async () => {
      const store = world.tinypm.store;
      const person = world.targetTracker();
      try {
        const issueId = await personCreates(world, "Born on the target by a person");
        const stopped = { n: 0 };
        await world
          .run("sync", { wrapState: stopAtLink({ targetId: issueId }, stopped), fullScan: true })
          .catch(() => undefined);
        expect(stopped.n).toBe(1);
        const copies = store
          .storiesOf(1)
          .filter((s) => s.name === "Born on the target by a person");
        expect(copies).toHaveLength(1);
        const copy = copies[0];
        if (copy === undefined) throw new Error("no copy");
        const { id, ...rest } = copy;
        store.replaceStory(id, { ...rest, description: "Described in tinyPM meanwhile." });

        const next = await world.run("sync", { fullScan: true });
        expect(next.summary).toMatchObject({ created: 0, failed: 0, conflicts: 0 });
        const ref = { kind: "story", id: issueId } as const;
        const issue = await person.get(ref);
        expect(issue?.description?.trim()).toBe("Described in tinyPM meanwhile.");
        expect(issue?.marker?.tinypmId).toBe(String(id));
        expect(store.storiesOf(1).filter((s) => s.name === copy.name)).toHaveLength(1);
        const quiet = await world.run("sync", { fullScan: true });
        expect(quiet.summary).toMatchObject({ created: 0, updated: 0, failed: 0, conflicts: 0 });
      } finally {
        await person.close();
      }
    }, 120_000);
  },
);
