import { describe, expect, it } from "vitest";
import type { WorkItem } from "../../core/model.js";
import type { CreateAction, Plan, PlanAction, UpdateAction } from "../plan/plan-types.js";
import { EMPTY_SNAPSHOT } from "../plan/snapshot.js";
import { savedAction } from "./saved-action.js";
import { checkPlan, restrictPlan } from "./stale.js";

const item = (id: string, o: Partial<WorkItem> = {}): WorkItem => ({
  system: "tinypm",
  kind: "story",
  id,
  title: `Story ${id}`,
  status: "PENDING",
  assignees: [],
  labels: [],
  comments: [],
  timeEntries: [],
  metadata: {},
  ...o,
});

const create = (source: WorkItem): CreateAction => ({
  type: "create",
  toSide: "target",
  kind: "story",
  title: source.title,
  source,
  draft: { kind: "story", title: source.title, status: "open", assignees: [], labels: [] },
  comments: [],
  timeEntries: [],
});

const update = (tinypm: WorkItem, target: WorkItem, title: string): UpdateAction => ({
  type: "update",
  kind: "story",
  title,
  link: {
    kind: "story",
    tinypmId: tinypm.id,
    targetId: target.id,
    origin: "tinypm",
    baseTinypm: EMPTY_SNAPSHOT,
    baseTarget: EMPTY_SNAPSHOT,
    syncedAt: "2026-01-01T00:00:00Z",
  },
  tinypmItem: tinypm,
  targetItem: target,
  changes: [{ field: "title", toSide: "target", from: target.title, to: title }],
  conflicts: [],
  tinypmSet: {},
  targetSet: { title },
  commentsToTarget: [],
  commentsToTinypm: [],
  timeToTarget: [],
  timeToTinypm: [],
});

const plan = (actions: PlanAction[]): Plan => ({ job: "j", targetSystem: "github", actions });
const saved = (...actions: (CreateAction | UpdateAction)[]) => actions.map(savedAction);

describe("checkPlan", () => {
  const one = item("1");
  const gh = item("7", { system: "github", title: "Story 1" });

  it("runs the saved actions that hold, and leaves out what the fresh plan adds", () => {
    const fresh = plan([create(one), create(item("2")), update(item("3"), gh, "Story 3")]);
    const check = checkPlan(saved(create(one)), fresh, false);
    expect(check).toMatchObject({ stale: [], done: [], outside: 2 });
    expect(restrictPlan(fresh, check.run).actions).toEqual([create(one)]);
  });

  it("names the part of the item that changed, on each side", () => {
    const before = update(one, gh, "Story 1 renamed");
    const after = update(item("1", { labels: ["x"] }), { ...gh, status: "closed" }, before.title);
    const check = checkPlan(saved(before), plan([after]), false);
    expect(check.stale).toEqual([
      expect.objectContaining({
        key: "update:story:1",
        tinypmId: "1",
        targetId: "7",
        changed: ["tinypm.labels", "target.status"],
      }),
    ]);
    expect(check.run.size).toBe(0);
  });

  it("finds a changed effect (another mapping) and a moved base", () => {
    const before = update(one, gh, "A");
    const moved = {
      ...update(one, gh, "B"),
      link: { ...before.link, baseTarget: { ...EMPTY_SNAPSHOT, fields: { title: "x" } } },
    };
    expect(checkPlan(saved(before), plan([moved]), false).stale[0]?.changed).toEqual([
      "base",
      "effect",
    ]);
  });

  it("takes an action the fresh plan lost as stale, or as done when resuming an apply", () => {
    expect(checkPlan(saved(create(one)), plan([]), false).stale[0]?.changed).toEqual(["gone"]);
    const resumed = checkPlan(saved(create(one)), plan([]), true);
    expect(resumed).toMatchObject({ stale: [], outside: 0 });
    expect(resumed.done.map((d) => d.key)).toEqual(["create:target:story:1"]);
  });

  it("ignores what only systems keep: ids, urls, change times", () => {
    const again = item("1", { url: "http://x/1", updatedAt: "2026-02-02T00:00:00Z" });
    expect(checkPlan(saved(create(one)), plan([create(again)]), false).stale).toEqual([]);
  });
});
