import { describe, expect, it } from "vitest";
import type { PlanAction } from "./plan/plan-types.js";
import { waitNotes } from "./report-data.js";
import { estimateRunWrites } from "./write-estimate.js";

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
  it("counts the creates as the target prices them, plus one write per comment", () => {
    const actions = [
      ...Array.from({ length: 51 }, () => create("story", 1)),
      ...Array.from({ length: 10 }, () => create("task")),
    ];
    expect(estimateRunWrites(actions, "jira", { targetCreateWrites: 3 })).toEqual({
      jira: 3 + 51,
    });
  });

  it("counts one write per create when the target did not price them", () => {
    const actions = [create("story", 2), create("task", 0, "closed:completed")];
    expect(estimateRunWrites(actions, "github")).toEqual({ github: 2 + 2 });
  });

  it("counts the milestones the target lacks, once per iteration", () => {
    const actions = [
      create("story", 0, "open", "S1"),
      create("story", 0, "open", "S2"),
      create("task", 0, "open", "S2"),
    ];
    expect(
      estimateRunWrites(actions, "github", { targetIterations: ["S1"], targetCreateWrites: 4 }),
    ).toEqual({ github: 4 + 1 });
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
