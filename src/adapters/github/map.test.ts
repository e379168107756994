import { describe, expect, it } from "vitest";
import { createBodyFor, patchBodyFor, stateFor, statusOf, toIteration, toWorkItem } from "./map.js";
import { withIssueMarker } from "./marker.js";
import type { RawIssue } from "./schema.js";

function issue(over: Partial<RawIssue> = {}): RawIssue {
  return {
    id: 1001,
    number: 7,
    title: "Story",
    body: "text",
    state: "open",
    state_reason: null,
    labels: [{ name: "bug" }, "ui"],
    assignees: [{ login: "alice" }],
    milestone: { number: 2, title: "Sprint 2" },
    comments: 0,
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-02T00:00:00Z",
    html_url: "http://x/acme/widgets/issues/7",
    ...over,
  };
}

describe("status", () => {
  it.each([
    ["open", null, "open"],
    ["closed", null, "closed:completed"],
    ["closed", "completed", "closed:completed"],
    ["closed", "not_planned", "closed:not_planned"],
    ["closed", "duplicate", "closed:duplicate"],
  ] as const)("%s/%s reads as %s", (state, reason, status) => {
    expect(statusOf({ state, state_reason: reason })).toBe(status);
  });

  it("refuses an unknown status, listing the valid ones", () => {
    expect(() => stateFor("PENDING")).toThrow(/open, closed:completed/);
  });
});

describe("toWorkItem", () => {
  it("maps an issue in GitHub flavour", () => {
    const body = withIssueMarker("desc", {
      marker: { job: "j", origin: "tinypm", originKind: "story", originId: "4" },
      meta: { colour: "RED" },
    });
    const item = toWorkItem(issue({ body }), [
      { id: 5, body: "c", user: { login: "bob" }, created_at: "2026-01-01T01:00:00Z" },
    ]);
    expect(item).toMatchObject({
      system: "github",
      kind: "story",
      id: "7",
      description: "desc",
      status: "open",
      labels: ["bug", "ui"],
      assignees: [{ id: "alice", login: "alice" }],
      iteration: { id: "2", name: "Sprint 2" },
      metadata: { colour: "RED" },
      marker: { job: "j", origin: "tinypm", originKind: "story", originId: "4" },
      timeEntries: [],
      url: "http://x/acme/widgets/issues/7",
      comments: [
        {
          id: "5",
          author: { id: "bob", login: "bob" },
          createdAt: "2026-01-01T01:00:00Z",
          body: "c",
        },
      ],
    });
    expect(item.priority).toBeUndefined();
  });

  it("reads a sub-issue as a task under its parent", () => {
    const item = toWorkItem(issue({ parent_issue_url: "http://x/repos/acme/widgets/issues/3" }));
    expect(item.kind).toBe("task");
    expect(item.parentId).toBe("3");
  });
});

describe("write bodies", () => {
  it("puts labels, assignees and milestone into the create call", () => {
    const body = createBodyFor(
      { kind: "story", title: "T", status: "open", labels: ["a"], assignees: [{ login: "alice" }] },
      4,
    );
    expect(body).toEqual({
      title: "T",
      body: "",
      labels: ["a"],
      assignees: ["alice"],
      milestone: 4,
    });
  });

  it("closes with the reason and reopens with 'reopened'", () => {
    expect(patchBodyFor({ status: "closed:not_planned" })).toEqual({
      state: "closed",
      state_reason: "not_planned",
    });
    expect(patchBodyFor({ status: "open" })).toEqual({ state: "open", state_reason: "reopened" });
  });

  it("reads a milestone as an iteration with its due date", () => {
    expect(
      toIteration({
        number: 3,
        title: "S",
        description: "g",
        due_on: "2026-02-01T08:00:00Z",
        state: "open",
      }),
    ).toEqual({
      id: "3",
      name: "S",
      goal: "g",
      endDate: "2026-02-01",
      state: "active",
    });
  });
});
