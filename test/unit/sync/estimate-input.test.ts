import { describe, expect, it } from "vitest";
import { createMemoryTracker } from "../../../src/adapters/memory/index.js";
import type { CreateOutline, Tracker } from "../../../src/core/tracker.js";
import type { Plan, PlanAction } from "../../../src/sync/plan/plan-types.js";
import { bundledMapping } from "../../support/work-items.js";
import { readEstimateInput } from "../../../src/sync/read/estimate-input.js";

/** A create of `kind` going to `status` on `toSide`. */
const create = (kind: "story" | "task", status: string, toSide = "target"): PlanAction =>
  ({
    type: "create",
    kind,
    toSide,
    title: "t",
    source: { iteration: undefined },
    draft: { status },
    comments: [],
    timeEntries: [],
  }) as unknown as PlanAction;

const plan = (actions: PlanAction[]): Plan => ({ job: "j", targetSystem: "jira", actions });

/** A memory target that prices its creates with `price`, and notes what it was asked. */
function pricing(price: (creates: readonly CreateOutline[]) => Promise<number>) {
  const asked: (readonly CreateOutline[])[] = [];
  const target: Tracker = Object.assign(createMemoryTracker({ system: "jira" }), {
    createWriteCost: (creates: readonly CreateOutline[]) => {
      asked.push(creates);
      return price(creates);
    },
  });
  return { target, asked };
}

describe("readEstimateInput", () => {
  const mapping = bundledMapping("jira");

  it("asks the target to price the plan's creates on it, in plan order", async () => {
    const { target, asked } = pricing(() => Promise.resolve(7));
    const actions = [
      create("story", "Done"),
      create("story", "x", "tinypm"),
      create("task", "To Do"),
    ];
    const input = await readEstimateInput(target, mapping, plan(actions), []);
    expect(asked).toEqual([
      [
        { kind: "story", status: "Done" },
        { kind: "task", status: "To Do" },
      ],
    ]);
    expect(input.targetCreateWrites).toBe(7);
  });

  it("leaves the price out when the target cannot tell it (one write per create)", async () => {
    const { target } = pricing(() => Promise.reject(new Error("statuses unreadable")));
    const input = await readEstimateInput(target, mapping, plan([create("story", "Done")]), []);
    expect(input.targetCreateWrites).toBeUndefined();
  });

  it("asks nothing when the plan creates nothing on the target", async () => {
    const { target, asked } = pricing(() => Promise.resolve(1));
    await readEstimateInput(target, mapping, plan([create("story", "x", "tinypm")]), []);
    expect(asked).toEqual([]);
  });
});
