import { describe, expect, it } from "vitest";
import { changedSince } from "../undo/changed-since.js";
import { snapshotToJson, type Snapshot } from "../plan/snapshot.js";
import { fieldDifferences } from "./compare.js";

const snap = (fields: Snapshot["fields"], comments: string[] = []): Snapshot => ({
  fields,
  comments,
  timeEntries: {},
});

describe("fieldDifferences (verify)", () => {
  it("names each field whose values differ, with both values", () => {
    expect(
      fieldDifferences(
        snap({ title: "A", status: "PENDING" }),
        snap({ title: "B", status: "PENDING" }),
      ),
    ).toEqual([{ field: "title", tinypm: "A", target: "B" }]);
  });

  it("names a value missing on one side as null, and comments by their keys", () => {
    expect(fieldDifferences(snap({ estimate: 3 }, ["k1"]), snap({}, []))).toEqual([
      { field: "estimate", tinypm: 3, target: null },
      { field: "comments", tinypm: ["k1"], target: [] },
    ]);
  });

  it("counts a pair the last sync recorded on both sides as in step, and a move from it as not", () => {
    // Jira gives every task a priority tinyPM's tasks cannot hold: the base records the pair.
    const t = snap({});
    const g = snap({ priority: "COULD_HAVE" });
    expect(fieldDifferences(t, g, t, g)).toEqual([]);
    expect(fieldDifferences(t, snap({ priority: "MUST_HAVE" }), t, g)).toEqual([
      { field: "priority", tinypm: null, target: "MUST_HAVE" },
    ]);
  });
});

describe("changedSince (undo)", () => {
  const base = snapshotToJson(snap({ title: "A", labels: ["ui"] }, ["k1"]));

  it("finds nothing on an item as the run left it", () => {
    expect(changedSince(snap({ title: "A", labels: ["ui"] }, ["k1"]), base)).toEqual([]);
  });

  it("names every field, and comments, a person changed since", () => {
    expect(changedSince(snap({ title: "B", labels: ["ui", "bug"] }, ["k1", "k2"]), base)).toEqual([
      "title",
      "labels",
      "comments",
    ]);
  });
});
