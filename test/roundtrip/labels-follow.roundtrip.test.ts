import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ItemRef, WorkItem } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import { compileMapping, type CompiledMapping } from "../../src/mapping/compile.js";
import { loadMapping } from "../../src/mapping/load.js";
import type { LinkRecord } from "../../src/state/sqlite-store.js";
import { startWorld, storyLinks, type World } from "./world.js";

// Issue 31: labels always follow values. Whatever changed, on either side, a synced issue carries
// exactly the labels of the values it holds: one label per single-valued family, no stale one.

type Target = "github" | "jira";

const FAMILIES: Record<Target, readonly string[]> = {
  github: ["acceptance: ", "priority: ", "color: ", "estimate: "],
  jira: ["color-"],
};
const STATUS: Record<Target, readonly string[]> = {
  github: ["open", "closed:completed", "closed:not_planned"],
  jira: ["To Do", "Done", "Rejected"],
};
const TINYPM_STATUS = ["PENDING", "ACCEPTED", "REJECTED"] as const;
const PRIORITY = ["MUST_HAVE", "SHOULD_HAVE", "COULD_HAVE", "WONT_HAVE"] as const;
const COLOR = ["WHITE", "YELLOW", "RED", "GREEN"] as const;
const TAGS = [[], ["alpha"], ["alpha", "beta"], ["gamma"]] as const;
const MAPPINGS: Record<Target, string> = {
  github: "mappings/github.yaml",
  jira: "mappings/jira.yaml",
};

const fold = (target: Target, l: string): string => (target === "github" ? l.toLowerCase() : l);
const hasPrefix = (l: string, p: string): boolean => l.toLowerCase().startsWith(p.toLowerCase());

/**
 * The labels of one family (or the tags: labels of no family), as a sorted list: the oracle is
 * the mapping's own encoding of the values (`toTarget`), not the code under test.
 */
function family(target: Target, labels: readonly string[], prefix: string | undefined): string[] {
  const of = labels.filter((l) =>
    prefix === undefined ? !FAMILIES[target].some((p) => hasPrefix(l, p)) : hasPrefix(l, prefix),
  );
  return of.map((l) => fold(target, l)).sort();
}

/** Every family carries exactly the labels of `values` (one per single-valued family). */
function expectLabelsOf(
  target: Target,
  m: CompiledMapping,
  values: WorkItem,
  issue: WorkItem,
): void {
  const wanted = m.toTarget(values).labels;
  for (const p of [...FAMILIES[target], undefined])
    expect({ family: p ?? "tags", labels: family(target, issue.labels, p) }).toEqual({
      family: p ?? "tags",
      labels: family(target, wanted, p),
    });
}

describe.each(["github", "jira"] as const)("labels follow values on %s", (target) => {
  let world: World;
  let stories: LinkRecord[] = [];
  let tinypm: Tracker;
  let person: Tracker;
  const m = compileMapping(loadMapping(MAPPINGS[target]));

  beforeAll(async () => {
    world = await startWorld({ target, generate: "stories=3,tasks=0,comments=0" });
    tinypm = world.tinypmTracker();
    person = world.targetTracker();
    await world.run("migrate");
    stories = storyLinks(world, 3);
  }, 180_000);
  afterAll(async () => {
    await tinypm.close();
    await person.close();
    await world.close();
  });

  const refs = (link: LinkRecord): { t: ItemRef; g: ItemRef } => ({
    t: { kind: "story", id: link.tinypmId },
    g: { kind: "story", id: link.targetId },
  });

  async function pair(link: LinkRecord): Promise<{ t: WorkItem; g: WorkItem }> {
    const { t, g } = refs(link);
    const [ti, gi] = await Promise.all([tinypm.get(t), person.get(g)]);
    if (ti === undefined || gi === undefined) throw new Error(`story ${link.tinypmId} is gone`);
    return { t: ti, g: gi };
  }

  it("a status closed by hand rewrites its acceptance label in the same run (issue 31)", async () => {
    const link = stories[0];
    if (link === undefined) throw new Error("no story");
    const { t, g } = refs(link);
    await tinypm.update(t, { set: { status: "REJECTED", color: "YELLOW" } });
    await world.run("sync", { fullScan: true });
    // A person closes the issue as completed (on Jira: moves it to Done), and on Jira also gives
    // it a second colour label next to the one it has.
    const before = await person.get(g);
    await person.update(g, {
      set: {
        status: STATUS[target][1] ?? "",
        ...(target === "jira" && before && { labels: [...before.labels, "color-red"] }),
      },
    });
    const ran = await world.run("sync", { fullScan: true });
    expect(ran.summary).toMatchObject({ updated: 1, failed: 0, conflicts: 0 });
    const now = await pair(link);
    expect(now.t.status).toBe("ACCEPTED");
    expectLabelsOf(target, m, now.t, now.g);
    // GitHub: the acceptance label of the new status; Jira: one colour label, tinyPM's.
    const family = target === "github" ? "acceptance: " : "color-";
    expect(now.g.labels.filter((l) => l.startsWith(family))).toEqual([
      target === "github" ? "acceptance: accepted" : "color-yellow",
    ]);
    // Nothing is left for the next run: the labels were rewritten with the status, not later.
    const again = await world.run("sync", { fullScan: true });
    expect(again.summary).toMatchObject({ updated: 0, created: 0, failed: 0 });
  }, 120_000);

  const edit = fc.record({
    story: fc.integer({ min: 0, max: 2 }),
    side: fc.constantFrom("tinypm", "target"),
    field: fc.constantFrom("status", "priority", "color", "tags", "second"),
    pick: fc.integer({ min: 0, max: 3 }),
  });

  it("after any sequence of changes on both sides, every issue carries exactly the labels of its values", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 4 }), async (edits) => {
        for (const e of edits) {
          const link = stories[e.story];
          if (link === undefined) continue;
          const { t, g } = refs(link);
          if (e.side === "tinypm") {
            const set =
              e.field === "status"
                ? { status: TINYPM_STATUS[e.pick % 3] ?? "PENDING" }
                : e.field === "priority"
                  ? { priority: PRIORITY[e.pick] ?? "MUST_HAVE" }
                  : e.field === "tags"
                    ? { labels: [...(TAGS[e.pick] ?? [])] }
                    : { color: COLOR[e.pick] ?? "WHITE" };
            await tinypm.update(t, { set });
            continue;
          }
          if (e.field === "status") {
            await person.update(g, { set: { status: STATUS[target][e.pick % 3] ?? "" } });
            continue;
          }
          const issue = await person.get(g);
          if (issue === undefined) continue;
          // A person's label edits: a family label replaced, a second one added, tags changed.
          const prefix =
            target === "jira" || e.field === "color"
              ? target === "jira"
                ? "color-"
                : "color: "
              : "priority: ";
          const value =
            prefix === "priority: "
              ? (["must have", "should have", "could have", "won't have"][e.pick] ?? "must have")
              : (["white", "yellow", "red", "green"][e.pick] ?? "white");
          const labels =
            e.field === "tags"
              ? [
                  ...issue.labels.filter((l) => FAMILIES[target].some((p) => hasPrefix(l, p))),
                  ...(TAGS[e.pick] ?? []),
                ]
              : e.field === "second"
                ? [...issue.labels, prefix + value]
                : [...issue.labels.filter((l) => !hasPrefix(l, prefix)), prefix + value];
          await person.update(g, { set: { labels: [...new Set(labels)] } });
        }
        await world.run("sync", { fullScan: true, conflicts: "tinypm" });
        for (const link of stories) {
          const now = await pair(link);
          expectLabelsOf(target, m, now.t, now.g);
        }
        const again = await world.run("sync", { fullScan: true, conflicts: "tinypm" });
        expect(again.summary).toMatchObject({ updated: 0, created: 0, conflicts: 0, failed: 0 });
      }),
      { numRuns: 6, seed: 31, endOnFailure: true },
    );
  }, 120_000);
});
