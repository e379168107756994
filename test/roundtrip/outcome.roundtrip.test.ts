import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PayloadInvalidError } from "../../src/core/errors.js";
import type { ItemRef } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import type { LinkRecord } from "../../src/state/sqlite-store.js";
import type { RunSummary } from "../../src/sync/events.js";
import type { RunReport } from "../../src/sync/engine.js";
import { toReport } from "../../src/sync/report-data.js";
import { startWorld, storyLinks, type World } from "./world.js";

// One outcome per item (src/sync/outcome.ts): a dry run's summary, the real run's summary and
// both reports' rows tell the same story of any plan; failures are joined to their items by id,
// never by title.
const STATUS = {
  github: ["open", "closed:completed", "closed:not_planned"],
  jira: ["To Do", "In Progress", "Done"],
} as const;
const TINYPM_STATUS = ["PENDING", "ACCEPTED", "REJECTED"] as const;
const COLORS = ["RED", "GREEN", "BLUE", "WHITE"] as const;
const FULL = { fullScan: true } as const;

/** The summary as the report's rows count it. */
function rowCounts(run: RunReport): RunSummary {
  const out: RunSummary = {
    created: 0,
    updated: 0,
    unchanged: 0,
    conflicts: 0,
    failed: 0,
    deleted: 0,
  };
  for (const item of toReport(run).items) {
    const key = (
      {
        create: "created",
        update: "updated",
        adopt: "updated",
        delete: "deleted",
        conflict: "conflicts",
        failed: "failed",
        skip: "unchanged",
      } as const
    )[item.action];
    out[key]++;
  }
  return out;
}

describe.each(["github", "jira"] as const)("one outcome per item on %s", (kind) => {
  let world: World;
  let stories: LinkRecord[] = [];
  let tinypm: Tracker;
  let person: Tracker;

  beforeAll(async () => {
    world = await startWorld({ target: kind, generate: "stories=6,tasks=1,comments=0" });
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

  const edit = fc.record({
    story: fc.integer({ min: 0, max: 5 }),
    side: fc.constantFrom("tinypm", "target"),
    field: fc.constantFrom("title", "status", "color"),
    pick: fc.integer({ min: 0, max: 3 }),
    word: fc.constantFrom("alpha", "beta", "gamma"),
  });

  it("plan and sync summarise any plan identically, and so do their reports' rows", async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 0, maxLength: 6 }), async (edits) => {
        round++;
        for (const e of edits) {
          const link = stories[e.story];
          if (link === undefined) continue;
          const t: ItemRef = { kind: "story", id: link.tinypmId };
          const g: ItemRef = { kind: "story", id: link.targetId };
          if (e.side === "tinypm") {
            const set =
              e.field === "title"
                ? { title: `${e.word} ${round}` }
                : e.field === "status"
                  ? { status: TINYPM_STATUS[e.pick % TINYPM_STATUS.length] ?? "PENDING" }
                  : { color: COLORS[e.pick % COLORS.length] ?? "RED" };
            await tinypm.update(t, { set });
          } else if (e.field !== "color") {
            const set =
              e.field === "title"
                ? { title: `${e.word} ${round} on the target` }
                : { status: STATUS[kind][e.pick % STATUS[kind].length] ?? STATUS[kind][0] };
            await person.update(g, { set });
          }
        }
        const planned = await world.run("sync", { ...FULL, dryRun: true });
        const ran = await world.run("sync", FULL);
        expect(ran.summary).toEqual(planned.summary);
        expect(rowCounts(planned)).toEqual(planned.summary);
        expect(rowCounts(ran)).toEqual(ran.summary);
      }),
      { numRuns: 8, seed: 30, endOnFailure: true },
    );
  }, 300_000);

  it("two items with one title, one of which fails: one failure, on the right item", async () => {
    const [a, b] = [stories[0], stories[1]];
    if (a === undefined || b === undefined) throw new Error("two stories needed");
    for (const l of [a, b])
      await tinypm.update(
        { kind: "story", id: l.tinypmId },
        { set: { title: "Twins", color: "BLUE" } },
      );
    await world.run("sync", FULL);
    for (const l of [a, b])
      await tinypm.update({ kind: "story", id: l.tinypmId }, { set: { color: "GREEN" } });
    const ran = await world.run("sync", {
      ...FULL,
      wrapTarget: (tracker) =>
        new Proxy(tracker, {
          get(target, prop, receiver) {
            if (prop !== "update") return Reflect.get(target, prop, receiver) as unknown;
            const update: Tracker["update"] = (ref, patch, opts) =>
              ref.id === b.targetId
                ? Promise.reject(
                    new PayloadInvalidError("refused by the test", {
                      system: kind,
                      operation: "update",
                      id: ref.id,
                    }),
                  )
                : tracker.update(ref, patch, opts);
            return update;
          },
        }),
    });
    expect(ran.summary).toMatchObject({ failed: 1, updated: 1, conflicts: 0 });
    const rows = toReport(ran).items.filter((i) => i.title === "Twins");
    expect(rows.map((r) => [r.tinypmId, r.action])).toEqual(
      expect.arrayContaining([
        [a.tinypmId, "update"],
        [b.tinypmId, "failed"],
      ]),
    );
    expect(rows.filter((r) => r.action === "failed")).toHaveLength(1);
    expect(rows.find((r) => r.action === "failed")?.error?.code).toBe("payload_invalid");
  }, 120_000);
});
