import { describe, expect, it } from "vitest";
import { leftSince, statusesFromChangelog } from "./status-history.js";

describe("statusesFromChangelog", () => {
  it("the first change's from, then each change's to", () => {
    const changes = [
      { fromString: "To Do", toString: "In Progress" },
      { fromString: "In Progress", toString: "Done" },
      { fromString: "Done", toString: "To Do" },
    ];
    expect(statusesFromChangelog(changes, "To Do")).toEqual([
      "To Do",
      "In Progress",
      "Done",
      "To Do",
    ]);
  });

  it("never changed: the current status alone", () => {
    expect(statusesFromChangelog([], "To Do")).toEqual(["To Do"]);
  });
});

describe("leftSince", () => {
  const since = "2026-11-28T02:33:58.620Z";
  const entry = (created: string, from: string, to: string) => ({
    created,
    items: [{ field: "status", fieldId: "status", fromString: from, toString: to }],
  });
  // The tool's own walk to Done, stamped by a Jira clock 5 ms ahead of this host's.
  const walk = [
    entry("2026-11-28T02:33:58.615+0000", "To Do", "In Progress"),
    entry("2026-11-28T02:33:58.621+0000", "In Progress", "Testing"),
    entry("2026-11-28T02:33:58.625+0000", "Testing", "Done"),
  ];

  it("the writes that arrived at the status never count, whatever the clocks say", () => {
    expect(leftSince(walk, "Done", since)).toBe(false);
  });

  it("a close and a reopen after the sync count", () => {
    const back = [
      ...walk,
      entry("2026-11-28T03:00:00.000+0000", "Done", "To Do"),
      entry("2026-11-28T03:00:05.000+0000", "To Do", "Done"),
    ];
    expect(leftSince(back, "Done", since)).toBe(true);
    expect(leftSince(back, "done", since)).toBe(true);
  });

  it("a change before the sync does not count", () => {
    const before = [
      entry("2026-11-28T02:00:00.000+0000", "Done", "To Do"),
      entry("2026-11-28T02:10:00.000+0000", "To Do", "Done"),
    ];
    expect(leftSince(before, "Done", since)).toBe(false);
  });

  it("other fields' entries do not count", () => {
    const other = [
      {
        created: "2026-11-28T03:00:00.000+0000",
        items: [{ field: "summary", fieldId: "summary", fromString: "Done", toString: "x" }],
      },
    ];
    expect(leftSince(other, "Done", since)).toBe(false);
  });
});
