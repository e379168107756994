import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { WorkItem } from "../../core/model.js";
import { compileMapping } from "../../mapping/compile.js";
import { loadMapping } from "../../mapping/load.js";
import { jobMarker } from "./marker.js";
import { rebuildLinks, rebuiltBases } from "./rebuild-links.js";
import type { PlanJob } from "./plan-input.js";
import { tinypmSnapshot } from "./snapshot.js";

const mapping = compileMapping(
  loadMapping(fileURLToPath(new URL("../../../mappings/github.yaml", import.meta.url))),
);
const JOB: PlanJob = {
  name: "widgets",
  direction: "both",
  conflicts: "manual",
  onDelete: "close",
  instance: "0123456789abcdef",
  project: "1",
};
const NOW = new Date("2024-01-02T00:00:00.000Z");

function story(id: string, over: Partial<WorkItem> = {}): WorkItem {
  return {
    system: "tinypm",
    kind: "story",
    id,
    title: `Story ${id}`,
    description: "Some text",
    status: "PENDING",
    priority: "SHOULD_HAVE",
    estimate: 3,
    assignees: [],
    labels: [],
    color: "WHITE",
    position: Number(id),
    comments: [],
    timeEntries: [],
    metadata: {},
    ...over,
  };
}

/** The GitHub copy of a tinyPM story as the job wrote it (marker with digests). */
function copyOf(t: WorkItem, id: string, over: Partial<WorkItem> = {}): WorkItem {
  const draft = mapping.toTarget(t);
  const marker = jobMarker({
    job: JOB,
    mapping,
    kind: t.kind,
    origin: "tinypm",
    originId: t.id,
    tinypmId: t.id,
    agreed: tinypmSnapshot(mapping, t),
  });
  return {
    ...draft,
    system: "github",
    id,
    metadata: draft.metadata ?? {},
    comments: [],
    timeEntries: [],
    marker,
    ...over,
  };
}

const rebuild = (tinypm: WorkItem[], target: WorkItem[]) =>
  rebuildLinks({
    job: JOB,
    mapping,
    targetSystem: "github",
    tinypmItems: tinypm,
    targetItems: target,
    links: [],
    now: NOW,
  });

describe("rebuildLinks", () => {
  it("links every marked copy to its tinyPM item, and leaves other jobs' and instances' alone", () => {
    const [s1, s2] = [story("1"), story("2")];
    const other = copyOf(story("2"), "103", {
      marker: { ...copyOf(s2, "x").marker!, instance: "ffffffffffffffff" },
    });
    const r = rebuild([s1, s2], [copyOf(s1, "101"), copyOf(s2, "102"), other]);
    expect(r.links.map((l) => `${l.record.tinypmId}:${l.record.targetId}:${l.how}`)).toEqual([
      "1:101:marker",
      "2:102:marker",
    ]);
    expect(r.foreign.map((g) => g.id)).toEqual(["103"]);
  });

  it("lets the edited side's value flow: the digests tell which side still holds the old one", () => {
    const s1 = story("1");
    const onTarget = copyOf(s1, "101", { title: "Edited on the target" });
    const base = rebuiltBases(mapping, s1, onTarget, "target");
    expect(base.tinypm.fields.title).toBe("Story 1");
    expect(base.target.fields.title).toBe("Story 1");
    const inTinypm = story("1", { title: "Edited in tinyPM" });
    const other = rebuiltBases(mapping, inTinypm, copyOf(s1, "101"), "target");
    expect([other.tinypm.fields.title, other.target.fields.title]).toEqual(["Story 1", "Story 1"]);
  });

  it("takes the side written last when no digest settles a field", () => {
    const s1 = story("1");
    const g = copyOf(s1, "101", { title: "Edited on the target" });
    const noDigests = { ...g, marker: { ...g.marker!, base: undefined } };
    expect(rebuiltBases(mapping, s1, noDigests, "target").tinypm.fields.title).toBe(
      "Edited on the target",
    );
    expect(rebuiltBases(mapping, s1, noDigests, "tinypm").target.fields.title).toBe("Story 1");
  });

  it("matches an unmarked copy by title only where the job has been, and parks a tie", () => {
    const [s1, s2] = [story("1"), story("2")];
    const bare = (t: WorkItem, id: string): WorkItem => ({ ...copyOf(t, id), marker: undefined });
    // First migration into a target with someone's issue of the same title: nothing linked.
    expect(rebuild([s1], [bare(s1, "101")]).links).toEqual([]);
    const r = rebuild([s1, s2], [copyOf(s1, "101"), bare(s2, "102")]);
    expect(r.links.map((l) => [l.record.targetId, l.how, l.confidence])).toEqual([
      ["101", "marker", undefined],
      ["102", "content", "high"],
    ]);
    const tie = rebuild([s1, s2], [copyOf(s1, "101"), bare(s2, "102"), bare(s2, "103")]);
    expect(tie.links.map((l) => l.record.targetId)).toEqual(["101"]);
    expect(tie.ambiguous).toEqual([
      { kind: "story", title: "Story 2", targetIds: ["102", "103"], tinypmIds: ["2"] },
    ]);
  });
});
