import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ItemRef } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import type { LinkRecord } from "../../src/state/sqlite-store.js";
import { openConflicts, startWorld, storyLinks, type World } from "./world.js";

// The target's clock is not this host's: a Jira or GitHub server a few seconds ahead or behind
// (or a sandbox whose strictly increasing clock runs ahead in a burst of writes). The tool's own
// status writes — a migration's walk along the workflow, a sync's close — are stamped by that
// clock, after the link's last sync as this host stamps it. They must never read as a person
// setting the status back (a spurious conflict on the next run); a person's real change and set
// back after the sync still must.
const STATUS = {
  github: { PENDING: "open", ACCEPTED: "closed:completed" },
  jira: { PENDING: "To Do", ACCEPTED: "Done" },
} as const;
const FULL = { fullScan: true } as const;

describe.each([
  ["github", 5_000],
  ["jira", 5_000],
  ["github", -5_000],
  ["jira", -5_000],
] as const)("a %s server whose clock is %i ms off this host's", (kind, skew) => {
  let world: World;
  let stories: LinkRecord[] = [];
  let tinypm: Tracker;
  let person: Tracker;
  let later = 0;
  const now = (): number => Date.now() + skew + later;

  beforeAll(async () => {
    world = await startWorld({
      target: kind,
      generate: "stories=6,tasks=0,comments=0",
      ...(kind === "github" ? { github: { now } } : { jira: { now } }),
    });
    tinypm = world.tinypmTracker();
    person = world.targetTracker();
    await world.run("migrate");
    stories = storyLinks(world, 6);
  }, 180_000);
  afterAll(async () => {
    await tinypm.close();
    await person.close();
    await world.close();
  });

  const refs = (i: number): { t: ItemRef; g: ItemRef; id: string } => {
    const link = stories[i];
    if (link === undefined) throw new Error(`no story ${String(i)}`);
    return {
      t: { kind: "story", id: link.tinypmId },
      g: { kind: "story", id: link.targetId },
      id: link.tinypmId,
    };
  };
  const status = async (tracker: Tracker, ref: ItemRef) => (await tracker.get(ref))?.status;

  it("the tool's own status writes, stamped by the target's clock, never make a conflict", async () => {
    // Each status change flows to the target at once, run after run, without a conflict.
    for (const value of ["PENDING", "ACCEPTED", "PENDING"] as const) {
      for (const l of stories)
        await tinypm.update({ kind: "story", id: l.tinypmId }, { set: { status: value } });
      const report = await world.run("sync", FULL);
      expect(report.summary.conflicts).toBe(0);
      expect(openConflicts(world)).toEqual([]);
      for (const l of stories)
        expect(await status(person, { kind: "story", id: l.targetId })).toBe(STATUS[kind][value]);
    }
  }, 180_000);

  it.skipIf(skew < 0)(
    "a person's close and reopen after the sync is still seen: a conflict, the reopen kept",
    async () => {
      const { t, g, id } = refs(0);
      // A second on (GitHub's events carry whole seconds; see status-set-back).
      later += 1_000;
      await tinypm.update(t, { set: { status: "ACCEPTED" } });
      await person.update(g, { set: { status: STATUS[kind].ACCEPTED } });
      await person.update(g, { set: { status: STATUS[kind].PENDING } });
      await world.run("sync", FULL);
      expect(await status(person, g)).toBe(STATUS[kind].PENDING);
      expect(await status(tinypm, t)).toBe("ACCEPTED");
      expect(
        openConflicts(world)
          .filter((c) => c.tinypmId === id)
          .map((c) => c.field),
      ).toEqual(["status"]);
    },
    120_000,
  );
});
