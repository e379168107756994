import { describe, expect, it } from "vitest";
import { createWriteCost, jiraCreateCost, statusDepths } from "./create-cost.js";

/** The sandbox's default workflow: To Do → In Progress → Testing → Done, Reject from any. */
const outline = [
  { name: "To Do", category: "new" },
  { name: "In Progress", category: "indeterminate" },
  { name: "Testing", category: "indeterminate" },
  { name: "Done", category: "done" },
  { name: "Rejected", category: "done" },
];
const depths = statusDepths(outline);
const depthOf = (s: string): number => depths.get(s.toLowerCase()) ?? 0;

describe("statusDepths", () => {
  it("walks the in-progress statuses to the first done one; another done status is one away", () => {
    expect(Object.fromEntries(depths)).toEqual({
      "to do": 0,
      "in progress": 1,
      testing: 2,
      done: 3,
      rejected: 1,
    });
  });
});

describe("jiraCreateCost", () => {
  it("creates the first draft and the first far status alone, the rest in one bulk call", () => {
    // Probes: the first (To Do, 0 transitions) and the first Done (3); the other 2 Done carry one
    // step in the create and make 2 more each; Rejected's one step rides on its create.
    const statuses = ["To Do", "Done", "Rejected", "To Do", "Done", "Rejected", "Done"];
    expect(jiraCreateCost(statuses, depthOf)).toEqual({ calls: 2 + 1, transitions: 3 + 2 + 2 });
  });

  it("makes every transition itself when all drafts go to one status (no probe)", () => {
    expect(jiraCreateCost(["Testing", "Testing", "Testing"], depthOf)).toEqual({
      calls: 1,
      transitions: 6,
    });
  });

  it("goes 50 drafts to a bulk call", () => {
    expect(jiraCreateCost(Array<string>(101).fill("To Do"), depthOf)).toEqual({
      calls: 3,
      transitions: 0,
    });
  });

  it("does not probe a status only one draft goes to", () => {
    // The first draft alone; Testing (once) is created in bulk and walks on its own.
    expect(jiraCreateCost(["To Do", "To Do", "Testing"], depthOf)).toEqual({
      calls: 2,
      transitions: 2,
    });
  });
});

describe("createWriteCost", () => {
  const create = (kind: "story" | "task", status = "To Do") => ({ kind, status });

  it("prices each kind's creates in their own bulk calls, 50 to a call", () => {
    const creates = [
      ...Array.from({ length: 51 }, () => create("story")),
      ...Array.from({ length: 10 }, () => create("task")),
    ];
    // 2 bulk calls for 51 stories, 1 for 10 tasks; all To Do: no transition.
    expect(createWriteCost(creates, outline)).toBe(3);
  });

  it("adds the probes and the transitions from the site's statuses", () => {
    const small = outline.filter((s) => s.name !== "Testing" && s.name !== "Rejected");
    const creates = [create("story"), create("story", "Done"), create("story", "Done")];
    // The first and the first Done alone, then 1 bulk call; Done is 2 transitions away: 2 for
    // the probe, 1 after the create's own step for the other.
    expect(createWriteCost(creates, small)).toBe(3 + 2 + 1);
  });

  it("counts the create calls alone when the statuses are unknown", () => {
    expect(createWriteCost([create("story", "Done"), create("task", "Done")], [])).toBe(2);
  });
});
