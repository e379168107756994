import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ItemRef } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import type { LinkRecord } from "../../src/state/sqlite-store.js";
import { openConflicts, startWorld, storyLinks, type World } from "./world.js";

// A person closes an issue and reopens it between two runs (a run held up by a killed worker's
// lease, say) while its tinyPM story was accepted. By value the target is back at the base, yet
// it was edited: both sides changed the status since the last sync. Taking the target for
// unchanged closed the issue over the person's reopen (the chaos test's lost reopen, gh4 story
// 4001); the target's history tells, so the job's policy decides, as for any field edited on both
// sides. Without such a change since the last sync, tinyPM's status flows as before.
const STATUS = {
  github: { PENDING: "open", ACCEPTED: "closed:completed" },
  jira: { PENDING: "To Do", ACCEPTED: "Done" },
} as const;

/** Every run reads all of tinyPM, so each edit is seen by the next run. */
const FULL = { fullScan: true } as const;

describe.each(["github", "jira"] as const)("a %s status changed and set back", (kind) => {
  let world: World;
  let stories: LinkRecord[] = [];
  let tinypm: Tracker;
  let person: Tracker;

  // The target's clock, moved on by a second before a person's edits: GitHub's events carry
  // whole seconds, and a change in the very second of the last sync cannot be told from the
  // sync's own. Moving the clock, not waiting for it, keeps the test independent of speed.
  let ahead = 0;
  const now = (): number => Date.now() + ahead;
  const aSecondLater = (): void => {
    ahead += 1_000;
  };

  beforeAll(async () => {
    world = await startWorld({
      target: kind,
      generate: "stories=4,tasks=0,comments=0",
      ...(kind === "github" ? { github: { now } } : { jira: { now } }),
    });
    tinypm = world.tinypmTracker();
    person = world.targetTracker();
    await world.run("migrate");
    stories = storyLinks(world, 4);
    for (const l of stories)
      await tinypm.update({ kind: "story", id: l.tinypmId }, { set: { status: "PENDING" } });
    await world.run("sync", FULL);
  }, 180_000);
  afterAll(async () => {
    await tinypm.close();
    await person.close();
    await world.close();
  });

  const refs = (i: number): { link: LinkRecord; t: ItemRef; g: ItemRef } => {
    const link = stories[i];
    if (link === undefined) throw new Error(`no story ${String(i)}`);
    return {
      link,
      t: { kind: "story", id: link.tinypmId },
      g: { kind: "story", id: link.targetId },
    };
  };
  const status = async (tracker: Tracker, ref: ItemRef) => (await tracker.get(ref))?.status;
  const conflictsOf = (tinypmId: string) =>
    openConflicts(world)
      .filter((c) => c.tinypmId === tinypmId)
      .map((c) => [c.field, c.baseValue, c.tinypmValue, c.targetValue]);

  it("a close and a reopen on the target while tinyPM accepted the story: a conflict, the reopen kept", async () => {
    const { link, t, g } = refs(0);
    aSecondLater();
    await tinypm.update(t, { set: { status: "ACCEPTED" } });
    await person.update(g, { set: { status: STATUS[kind].ACCEPTED } });
    await person.update(g, { set: { status: STATUS[kind].PENDING } });

    await world.run("sync", FULL);
    expect(await status(person, g)).toBe(STATUS[kind].PENDING);
    expect(await status(tinypm, t)).toBe("ACCEPTED");
    expect(conflictsOf(link.tinypmId)).toEqual([
      ["status", "unknown: both sides changed since the last sync", "ACCEPTED", "PENDING"],
    ]);
    // Parked: nothing written either way on the next run.
    const again = await world.run("sync", FULL);
    expect(again.summary.updated).toBe(0);
    expect(await status(person, g)).toBe(STATUS[kind].PENDING);
  }, 120_000);

  it("under the target policy the set-back target wins; under tinypm, tinyPM", async () => {
    const a = refs(1);
    aSecondLater();
    await tinypm.update(a.t, { set: { status: "ACCEPTED" } });
    await person.update(a.g, { set: { status: STATUS[kind].ACCEPTED } });
    await person.update(a.g, { set: { status: STATUS[kind].PENDING } });
    await world.run("sync", { ...FULL, conflicts: "target" });
    expect(await status(tinypm, a.t)).toBe("PENDING");
    expect(await status(person, a.g)).toBe(STATUS[kind].PENDING);
    expect(conflictsOf(a.link.tinypmId)).toEqual([]);

    const b = refs(2);
    aSecondLater();
    await tinypm.update(b.t, { set: { status: "ACCEPTED" } });
    await person.update(b.g, { set: { status: STATUS[kind].ACCEPTED } });
    await person.update(b.g, { set: { status: STATUS[kind].PENDING } });
    await world.run("sync", { ...FULL, conflicts: "tinypm" });
    expect(await status(person, b.g)).toBe(STATUS[kind].ACCEPTED);
    expect(conflictsOf(b.link.tinypmId)).toEqual([]);
  }, 120_000);

  it("without a target change since the last sync, tinyPM's status flows both ways, the tool's own writes not taken for one", async () => {
    const { link, t, g } = refs(3);
    await tinypm.update(t, { set: { status: "ACCEPTED" } });
    await world.run("sync", FULL);
    expect(await status(person, g)).toBe(STATUS[kind].ACCEPTED);
    // The history now holds the tool's own close, made before the link's base update.
    await tinypm.update(t, { set: { status: "PENDING" } });
    await world.run("sync", FULL);
    expect(await status(person, g)).toBe(STATUS[kind].PENDING);
    expect(conflictsOf(link.tinypmId)).toEqual([]);
  }, 120_000);
});
