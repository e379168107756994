import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROPERTY_KEY } from "../../src/adapters/jira/schema.js";
import type { StoryRecord } from "../../src/reference-server/index.js";
import { openState } from "../../src/state/open-state.js";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import { readCreations } from "../../src/sync/undo/creations.js";
import { personCreates } from "./person.js";
import { stopAtLink } from "./stop-at-link.js";
import { startWorld, type World } from "./world.js";

// A person's issue is imported into tinyPM; the import then writes the marker naming the tinyPM
// copy into the issue, so that the link can be rebuilt from the target alone. The link must never
// stand without that marker: a quiet sync never reads the issue again, so a link recorded before
// a marker write that failed (or a run stopped before it) left the issue unmarked for good, and a
// lost state could not find the copy again.

describe.each(["github", "jira"] as const)("the marker of an issue imported from %s", (kind) => {
  let world: World;

  beforeAll(async () => {
    world = await startWorld({ target: kind, generate: "stories=1,tasks=0,comments=0" });
    await world.run("migrate");
  }, 120_000);
  afterAll(async () => {
    await world.close();
  });

  /** The sandbox route of the request that writes an issue's marker (fault grammar). */
  const markerWrite = (issueId: string): string => {
    const t = world.target;
    return t.kind === "github"
      ? `PATCH /repos/${t.server.owner}/${t.server.repo}/issues/${issueId}`
      : `PUT /rest/api/3/issue/${issueId}/properties/${PROPERTY_KEY}`;
  };

  const copiesOf = (name: string): StoryRecord[] =>
    world.tinypm.store.storiesOf(1).filter((s) => s.name === name);

  /** The issue's marker as the target holds it. */
  const markerOn = async (issueId: string) => {
    const person = world.targetTracker();
    try {
      return (await person.get({ kind: "story", id: issueId }))?.marker;
    } finally {
      await person.close();
    }
  };

  /** The state's link of the issue, the copy of its block kept beside it, what is pending. */
  const stored = (issueId: string) => {
    const state = openSqliteStore({ path: world.statePath });
    try {
      const link = state.getLinkByTarget("widgets", "story", issueId);
      return {
        link,
        identity:
          link === undefined ? undefined : state.getLinkIdentity("widgets", "story", link.tinypmId),
        intents: state.pendingIntents("widgets").filter((i) => i.originId === issueId),
      };
    } finally {
      state.close();
    }
  };

  /** The runs whose record of what they created (for `undo`) names the tinyPM copy. */
  const runsRecording = async (copyId: number): Promise<string[]> => {
    const state = await openState({ backend: "sqlite", path: world.statePath });
    try {
      const out: string[] = [];
      for (const run of await state.runs({ job: "widgets" })) {
        const made = (await readCreations(state, "widgets", run.id)) ?? [];
        if (made.some((c) => c.side === "tinypm" && c.tinypmId === String(copyId)))
          out.push(run.id);
      }
      return out;
    } finally {
      await state.close();
    }
  };

  /** The run settling what an earlier one left: one copy, linked, marked, its block stored. */
  async function settledOnce(issueId: string, title: string, copyId: number): Promise<void> {
    const next = await world.run("sync");
    expect(next.summary).toMatchObject({ failed: 0, conflicts: 0 });
    expect(copiesOf(title).map((s) => s.id)).toEqual([copyId]);
    expect((await markerOn(issueId))?.tinypmId).toBe(String(copyId));
    const { link, identity, intents } = stored(issueId);
    expect(link?.tinypmId).toBe(String(copyId));
    expect(identity?.marker.tinypmId).toBe(String(copyId));
    expect(identity?.marker.originId).toBe(issueId);
    expect(intents).toEqual([]);
    const quiet = await world.run("sync");
    expect(quiet.summary).toMatchObject({ created: 0, updated: 0, failed: 0, conflicts: 0 });
    expect(copiesOf(title)).toHaveLength(1);
    // The copy is one run's to take back, and one run's only: the one that linked it.
    expect(await runsRecording(copyId)).toEqual([next.runId]);
  }

  it("a marker write that fails: the run stops; the next links the copy once, marked, the block stored", async () => {
    const title = "Import whose marker write fails";
    const issueId = await personCreates(world, title, "Its marker write fails.");
    // Every attempt answers 500: the target counts as unavailable, which stops the run.
    world.target.server.setFaults(`500@${markerWrite(issueId)}`);
    try {
      await expect(world.run("sync")).rejects.toThrow(/500/);
    } finally {
      world.target.server.setFaults("");
    }
    const copies = copiesOf(title);
    expect(copies).toHaveLength(1);
    expect(await markerOn(issueId)).toBeUndefined();

    await settledOnce(issueId, title, copies[0]!.id);
  }, 180_000);

  it("a run stopped after the marker write, before the link: the next links the copy once, stores the block, writes no marker again", async () => {
    const title = "Import stopped after its marker";
    const issueId = await personCreates(world, title, "Marked, then the run stopped.");
    const stopped = { n: 0 };
    await world
      .run("sync", { wrapState: stopAtLink({ targetId: issueId }, stopped) })
      .catch(() => undefined);
    expect(stopped.n).toBe(1);
    const copies = copiesOf(title);
    expect(copies).toHaveLength(1);
    const copyId = copies[0]!.id;
    // The marker went first: the issue names its copy although no link was recorded.
    expect((await markerOn(issueId))?.tinypmId).toBe(String(copyId));
    expect(stored(issueId).link).toBeUndefined();

    const writes = world.target.server.stats().writes;
    await settledOnce(issueId, title, copyId);
    // Neither the settling run nor the quiet one after it wrote anything to the target.
    expect(world.target.server.stats().writes).toBe(writes);
  }, 180_000);

  it("a marker write that fails again when the next run settles the import: linked all the same, never imported twice", async () => {
    const title = "Import whose marker write fails twice";
    const issueId = await personCreates(world, title, "Its marker write fails, twice.");
    world.target.server.setFaults(`500@${markerWrite(issueId)}`);
    try {
      await expect(world.run("sync")).rejects.toThrow(/500/);
      expect(stored(issueId).intents).toHaveLength(1);
      // The settling run finds the copy, fails to mark the issue, and links them all the same.
      await expect(world.run("sync")).rejects.toThrow(/500/);
    } finally {
      world.target.server.setFaults("");
    }
    const copies = copiesOf(title);
    expect(copies).toHaveLength(1);
    const copyId = copies[0]!.id;
    const { link, identity, intents } = stored(issueId);
    expect(link?.tinypmId).toBe(String(copyId));
    expect(identity).toBeUndefined();
    expect(intents).toEqual([]);

    const next = await world.run("sync");
    expect(next.summary).toMatchObject({ created: 0, failed: 0, conflicts: 0 });
    expect(copiesOf(title).map((s) => s.id)).toEqual([copyId]);
    // The copy is one run's to take back: the one that linked it, although it stopped.
    expect(await runsRecording(copyId)).toHaveLength(1);
    // The block the issue lacks comes back with --repair-markers (or the item's next write).
    expect(await markerOn(issueId)).toBeUndefined();
    const repaired = await world.run("sync", { repairMarkers: true });
    expect(repaired.summary).toMatchObject({ created: 0, failed: 0, conflicts: 0 });
    expect((await markerOn(issueId))?.tinypmId).toBe(String(copyId));
    expect(stored(issueId).identity?.marker.tinypmId).toBe(String(copyId));
    expect(copiesOf(title)).toHaveLength(1);
  }, 180_000);
});
