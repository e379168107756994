import { describe, expect, it } from "vitest";
import { statusesFromChangelog } from "./status-history.js";

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
