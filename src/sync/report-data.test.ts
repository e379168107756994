import { describe, expect, it } from "vitest";
import type { PlanAction } from "./plan/plan-types.js";
import { estimateRunWrites, waitNotes } from "./report-data.js";

/** A create of `kind` on the target, with `comments` comments. */
const create = (
  kind: "story" | "task",
  comments = 0,
  status = "open",
  iteration?: string,
): PlanAction =>
  ({
    type: "create",
    kind,
    toSide: "target",
    title: "t",
    source: { iteration: iteration === undefined ? undefined : { name: iteration } },
    draft: { status },
    comments: Array.from({ length: comments }, () => ({ body: "c" })),
    timeEntries: [],
  }) as unknown as PlanAction;

describe("estimateRunWrites", () => {
  it("counts Jira's creates 50 to a bulk call per kind, plus one call per comment", () => {
    const actions = [
      ...Array.from({ length: 51 }, () => create("story", 1)),
      ...Array.from({ length: 10 }, () => create("task")),
    ];
    // 2 bulk calls for 51 stories, 1 for 10 tasks, 51 comments.
    expect(estimateRunWrites(actions, "jira")).toEqual({ jira: 54 });
  });

  it("counts the milestones the target lacks, once per iteration", () => {
    const actions = [
      create("story", 0, "open", "S1"),
      create("story", 0, "open", "S2"),
      create("task", 0, "open", "S2"),
    ];
    expect(estimateRunWrites(actions, "github", { targetIterations: ["S1"] })).toEqual({
      github: 3 + 1 + 1,
    });
  });

  it("counts Jira's sprints, probe creates and transitions from the site's statuses", () => {
    const statuses = [
      { name: "To Do", category: "new" },
      { name: "In Progress", category: "indeterminate" },
      { name: "Done", category: "done" },
    ];
    const actions = [
      create("story", 0, "To Do", "S1"),
      create("story", 0, "Done"),
      create("story", 0, "Done"),
    ];
    // 1 sprint; the first and the first Done alone, then 1 bulk call; Done is 2 transitions away:
    // 2 for the probe, 1 after the create's own step for the other.
    expect(estimateRunWrites(actions, "jira", { statuses, targetIterations: [] })).toEqual({
      jira: 1 + 3 + 2 + 1,
    });
  });

  it("counts GitHub's creates one by one, with the sub-issue link and the closing", () => {
    const actions = [create("story", 2), create("task", 0, "closed:completed")];
    expect(estimateRunWrites(actions, "github")).toEqual({ github: 1 + 2 + 1 + 1 + 1 });
  });
});

describe("waitNotes", () => {
  it("sums the waits for limits from the gate's wait events, not a retry's backoff", () => {
    const until = Date.now();
    expect(
      waitNotes([
        { type: "wait_start", system: "github", reason: "minute", until, operation: "POST" },
        { type: "wait_end", system: "github", waitedMs: 2000 },
        { type: "wait_start", system: "jira", reason: "retry", until, operation: "GET" },
        { type: "wait_end", system: "jira", waitedMs: 9000 },
        { type: "wait_start", system: "jira", reason: "service", until, operation: "PUT" },
        { type: "wait_end", system: "jira", waitedMs: 500 },
      ]),
    ).toEqual(["Waited 2.5 s for rate limits (2 pauses)."]);
  });

  it("says nothing when the run only waited for retries", () => {
    const until = Date.now();
    expect(
      waitNotes([
        { type: "wait_start", system: "jira", reason: "retry", until, operation: "GET" },
        { type: "wait_end", system: "jira", waitedMs: 9000 },
      ]),
    ).toEqual([]);
  });
});
