import { describe, expect, it } from "vitest";
import { defaultMapping } from "../../../test/unit/mapping/fixtures.js";
import { labelSpelling } from "./label-case.js";
import { mergePair } from "./merge.js";
import type { Snapshot } from "./snapshot.js";

const snap = (labels: string[]): Snapshot => ({
  fields: { labels: [...labels].sort() },
  comments: [],
  timeEntries: {},
});

describe("labelSpelling", () => {
  it("reads GitHub labels in tinyPM's spelling of the item's tags, current tags first", () => {
    const s = labelSpelling(defaultMapping("github"), ["Backend"], ["BACKEND", "Ops"]);
    expect(s.labels(["backend", "ops", "new"])).toEqual(["Backend", "Ops", "new"]);
    expect(s.snapshot(snap(["backend", "x"])).fields.labels).toEqual(["Backend", "x"]);
  });

  it("leaves Jira labels as they are (case-sensitive there)", () => {
    const s = labelSpelling(defaultMapping("jira"), ["Backend"]);
    expect(s.labels(["backend"])).toEqual(["backend"]);
    expect(s.snapshot(snap(["backend"])).fields.labels).toEqual(["backend"]);
  });

  it("makes the same label added on both sides one change, not a conflict", () => {
    const s = labelSpelling(defaultMapping("github"), ["Backend", "x"], ["Backend"]);
    const merge = mergePair({
      fieldNames: ["labels"],
      tinypm: snap(["Backend", "x"]),
      target: s.snapshot(snap(["backend", "X"])),
      baseTinypm: snap(["Backend"]),
      baseTarget: s.snapshot(snap(["backend"])),
      direction: "both",
      policy: "manual",
    });
    expect(merge.conflicts).toEqual([]);
    expect(merge.toTinypm).toEqual([]);
    expect(merge.toTarget).toEqual([]);
  });
});
