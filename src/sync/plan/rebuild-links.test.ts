import { describe, expect, it } from "vitest";
import type { WorkItem } from "../../core/model.js";
import { jobMarker, PARKED_DIGEST } from "./marker.js";
import { mergePair } from "./merge.js";
import { rebuildLinks, rebuiltBases } from "./rebuild-links.js";
import { type Snapshot, snapshotFromJson, targetSnapshot, tinypmSnapshot } from "./snapshot.js";
import { EDITED_BOTH_BASE, EDITED_BOTH_BASE_LABEL } from "./unknown-base.js";
import {
  bundledMapping,
  createMarker,
  targetCopy,
  TEST_JOB,
  tinypmStory,
} from "../../../test/support/work-items.js";

const mapping = bundledMapping("github");
const JOB = TEST_JOB;
const NOW = new Date("2024-01-02T00:00:00.000Z");

const story = (id: string, over: Partial<WorkItem> = {}): WorkItem =>
  tinypmStory(id, {
    description: "Some text",
    priority: "SHOULD_HAVE",
    estimate: 3,
    color: "WHITE",
    position: Number(id),
    ...over,
  });

/** The GitHub copy of a tinyPM story as the job wrote it (marker with digests). */
const copyOf = (t: WorkItem, id: string, over: Partial<WorkItem> = {}): WorkItem =>
  targetCopy(mapping, t, { system: "github", id }, { marker: createMarker(mapping, t), ...over });

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

const merge = (
  t: WorkItem,
  g: WorkItem,
  bases: { tinypm: Snapshot; target: Snapshot },
  resolved?: Record<string, "tinypm" | "target">,
) =>
  mergePair({
    fieldNames: mapping.fieldNames(t.kind),
    tinypm: tinypmSnapshot(mapping, t),
    target: targetSnapshot(mapping, g),
    baseTinypm: bases.tinypm,
    baseTarget: bases.target,
    direction: "both",
    policy: "manual",
    resolved,
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

  it("makes a field both sides edited since the digests a conflict, as a kept state would", () => {
    const s1 = story("1");
    const written = copyOf(s1, "101");
    const t = story("1", { title: "Mine (tinyPM)", estimate: 5 });
    const g = { ...written, title: "Theirs (GitHub)" };
    const bases = rebuiltBases(mapping, t, g, "target");
    expect(bases.tinypm.fields.title).toEqual(EDITED_BOTH_BASE);
    expect(bases.target.fields.title).toEqual(EDITED_BOTH_BASE);
    // The field edited on one side only still flows; the one edited on both is parked.
    const m = merge(t, g, bases);
    expect(m.toTarget).toEqual(["estimate"]);
    expect(m.toTinypm).toEqual([]);
    expect(m.conflicts).toEqual([
      {
        field: "title",
        base: EDITED_BOTH_BASE_LABEL,
        tinypm: "Mine (tinyPM)",
        target: "Theirs (GitHub)",
        resolution: "parked",
      },
    ]);
    // The plan a kept state gives: the same writes, the same conflict (its base aside).
    const kept = { tinypm: tinypmSnapshot(mapping, s1), target: targetSnapshot(mapping, written) };
    const want = merge(t, g, kept);
    expect([m.toTarget, m.toTinypm, m.conflicts.map(({ base: _b, ...c }) => c)]).toEqual([
      want.toTarget,
      want.toTinypm,
      want.conflicts.map(({ base: _b, ...c }) => c),
    ]);
    // A decision taken with `conflicts resolve` applies as usual.
    expect(merge(t, g, bases, { title: "target" }).toTinypm).toEqual(["title"]);
    // Both edited to the same value: nothing to do.
    const same = { ...written, title: "Mine (tinyPM)" };
    const agreed = merge(t, same, rebuiltBases(mapping, t, same, "target"));
    expect([agreed.toTinypm, agreed.conflicts]).toEqual([[], []]);
  });

  it("does the same for an item born on the target (tinyPM written last)", () => {
    const t0 = story("7", { title: "Born on GitHub" });
    const draft = mapping.toTarget(t0);
    const marker = jobMarker({
      job: JOB,
      mapping,
      kind: "story",
      origin: "github",
      originId: "55",
      tinypmId: "7",
      agreed: tinypmSnapshot(mapping, t0),
    });
    const g: WorkItem = {
      ...draft,
      system: "github",
      id: "55",
      metadata: draft.metadata ?? {},
      comments: [],
      timeEntries: [],
      marker,
      status: "closed:completed",
    };
    const t = { ...t0, status: "REJECTED", priority: "MUST_HAVE" };
    expect(mapping.toTinypm(g).status).not.toBe("REJECTED");
    const bases = rebuiltBases(mapping, t, g, "tinypm");
    expect(bases.tinypm.fields.status).toEqual(EDITED_BOTH_BASE);
    const m = merge(t, g, bases);
    expect(m.conflicts.map((c) => [c.field, c.tinypm, c.target, c.resolution])).toEqual([
      ["status", "REJECTED", mapping.toTinypm(g).status, "parked"],
    ]);
    expect(m.toTarget).toEqual(["priority"]);
    // The rebuilt link of `rebuildLinks` carries these bases.
    const r = rebuild([t], [g]);
    expect(r.links.map((l) => [l.record.origin, l.record.tinypmId, l.record.targetId])).toEqual([
      ["github", "7", "55"],
    ]);
    const stored = snapshotFromJson(r.links[0]?.record.base.tinypm);
    expect(stored.fields.status).toEqual(EDITED_BOTH_BASE);
  });

  it("finds a conflict parked at the last write again; a marker says it is parked", () => {
    const s1 = story("1");
    const parkedMarker = jobMarker({
      job: JOB,
      mapping,
      kind: "story",
      origin: "tinypm",
      originId: "1",
      tinypmId: "1",
      agreed: tinypmSnapshot(mapping, s1),
      parked: ["title"],
      targetHeld: targetSnapshot(mapping, { ...copyOf(s1, "101"), title: "Theirs" }),
    });
    expect(parkedMarker.base?.title).toBe(PARKED_DIGEST);
    expect(parkedMarker.target).toBeUndefined();
    const t = story("1", { title: "Mine" });
    const g = copyOf(s1, "101", { title: "Theirs", marker: parkedMarker });
    // Both sides still differ: the conflict, whichever side was written last.
    for (const last of ["target", "tinypm"] as const) {
      const bases = rebuiltBases(mapping, t, g, last);
      expect(merge(t, g, bases).conflicts.map((c) => [c.field, c.tinypm, c.target])).toEqual([
        ["title", "Mine", "Theirs"],
      ]);
    }
    // Settled by hand on both sides since: nothing to do.
    const agreed = { ...g, title: "Mine" };
    const m = merge(t, agreed, rebuiltBases(mapping, t, agreed, "target"));
    expect([m.toTarget, m.toTinypm, m.conflicts]).toEqual([[], [], []]);
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
