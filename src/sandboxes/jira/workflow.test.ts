import { describe, expect, it } from "vitest";
import {
  DEFAULT_WORKFLOW,
  availableTransitions,
  findTransition,
  shortestPath,
  validateWorkflow,
} from "./workflow.js";

describe("the default workflow", () => {
  it("is valid", () => {
    expect(validateWorkflow(DEFAULT_WORKFLOW)).toEqual([]);
  });

  it("puts Done three transitions away from To Do, needing a resolution", () => {
    expect(shortestPath(DEFAULT_WORKFLOW, "10000", "10002")).toEqual(["11", "21", "31"]);
    const done = findTransition(DEFAULT_WORKFLOW, "10001", "31");
    expect(done.kind === "ok" && done.transition.requiredFields).toEqual(["resolution"]);
  });

  it("offers transitions only from their source statuses", () => {
    expect(availableTransitions(DEFAULT_WORKFLOW, "10002").map((t) => t.name)).toEqual(["Reopen"]);
    expect(findTransition(DEFAULT_WORKFLOW, "10000", "31").kind).toBe("not-from-here");
    expect(findTransition(DEFAULT_WORKFLOW, "10000", "999").kind).toBe("unknown");
  });

  it("names unknown statuses in a custom workflow", () => {
    const spec = {
      ...DEFAULT_WORKFLOW,
      transitions: [{ id: "1", name: "Go", from: ["nope"], to: "10000" }],
    };
    expect(validateWorkflow(spec)).toEqual(['transition 1 "Go" names unknown status "nope"']);
  });
});
