import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { WorkItem } from "../../core/model.js";
import { markerStale, withTargetDigests } from "./marker.js";
import { mergePair } from "./merge.js";
import { rebuiltBases } from "./rebuild-links.js";
import { sameJson, type Snapshot, targetSnapshot, tinypmSnapshot } from "./snapshot.js";
import {
  bundledMapping,
  createMarker,
  targetCopy,
  tinypmStory,
} from "../../../test/support/work-items.js";

/**
 * A lost state's links are rebuilt from the markers; where the target holds another value than
 * tinyPM's (a default it chose, a normalisation), the rebuilt bases must still be the ones the
 * state held, so that the next plan neither invents an edit nor loses one.
 */
const mapping = bundledMapping("jira");

const story = (over: Partial<WorkItem>): WorkItem => tinypmStory("1", { title: "Story", ...over });

/** What a target does to what it is sent: its own default priority, trimmed titles, rounding. */
function asTargetStores(draft: WorkItem): WorkItem {
  return {
    ...draft,
    title: draft.title.trim(),
    priority: draft.priority ?? "Medium",
    ...(draft.estimate !== undefined && { estimate: Math.round(draft.estimate * 10) / 10 }),
    labels: [...draft.labels].reverse(),
  };
}

/** The Jira copy of `t` as the job leaves it: stored the target's way, marked after the write. */
function copyOf(t: WorkItem, withTargetDigestsToo = true): WorkItem {
  const stored = asTargetStores(targetCopy(mapping, t, { system: "jira", id: "WID-1" }));
  const targetHeld = withTargetDigestsToo ? targetSnapshot(mapping, stored) : undefined;
  return { ...stored, marker: createMarker(mapping, t, { targetHeld }) };
}

const merge = (t: WorkItem, g: WorkItem, bases: { tinypm: Snapshot; target: Snapshot }) =>
  mergePair({
    fieldNames: mapping.fieldNames("story"),
    tinypm: tinypmSnapshot(mapping, t),
    target: targetSnapshot(mapping, g),
    baseTinypm: bases.tinypm,
    baseTarget: bases.target,
    direction: "both",
    policy: "manual",
  });

describe("rebuilt bases where the target holds its own values", () => {
  it("a story sent without a priority: Jira's Medium is the target's base, not an edit", () => {
    const t = story({ title: "No priority" });
    const g = copyOf(t);
    expect(g.priority).toBe("Medium");
    expect(Object.keys(g.marker?.target ?? {})).toEqual(["priority"]);
    const bases = rebuiltBases(mapping, t, g, "target");
    expect(bases.tinypm.fields.priority).toBeUndefined();
    expect(bases.target.fields.priority).toBe("COULD_HAVE");
    const m = merge(t, g, bases);
    expect([m.toTarget, m.toTinypm, m.conflicts]).toEqual([[], [], []]);

    // Before target digests: the default reads as an edit made on Jira (the defect).
    const old = copyOf(t, false);
    const oldMerge = merge(t, old, rebuiltBases(mapping, t, old, "target"));
    expect(oldMerge.toTinypm).toEqual(["priority"]);
  });

  it("real edits after the loss still flow, each the right way", () => {
    const t = story({ title: "No priority" });
    const g = copyOf(t);
    const onJira = { ...g, priority: "High" };
    expect(merge(t, onJira, rebuiltBases(mapping, t, onJira, "target")).toTinypm).toEqual([
      "priority",
    ]);
    const inTinypm = { ...t, priority: "MUST_HAVE" };
    expect(merge(inTinypm, g, rebuiltBases(mapping, inTinypm, g, "target")).toTarget).toEqual([
      "priority",
    ]);
    // A tinyPM edit to the value the target already shows: nothing to write either way.
    const same = { ...t, priority: "COULD_HAVE" };
    const m = merge(same, g, rebuiltBases(mapping, same, g, "target"));
    expect([m.toTarget, m.toTinypm, m.conflicts]).toEqual([[], [], []]);
  });

  it("a marker is stale when its target digests are, and is as small as before without them", () => {
    const t = story({ title: "Plain", priority: "MUST_HAVE" });
    const g = copyOf(t);
    expect(g.marker?.target).toBeUndefined();
    const withDefault = copyOf(story({ title: "Plain" }));
    const marker = withDefault.marker;
    if (marker === undefined) throw new Error("no marker");
    const { target: _gone, ...withoutTarget } = marker;
    expect(markerStale(withoutTarget, marker)).toBe(true);
    expect(markerStale(marker, marker)).toBe(false);
    expect(withTargetDigests(marker, tinypmSnapshot(mapping, story({ title: "Plain" })))).toEqual(
      withoutTarget,
    );
  });

  const padded = fc
    .tuple(fc.constantFrom("", " ", "  "), fc.constantFrom("Alpha", "Beta x"))
    .map(([pad, w]) => `${pad}${w}${pad}`);
  const itemArb = fc.record({
    title: padded,
    description: fc.constantFrom(undefined, "", "Some text"),
    status: fc.constantFrom("PENDING", "ACCEPTED", "REJECTED"),
    priority: fc.constantFrom(undefined, "MUST_HAVE", "SHOULD_HAVE", "COULD_HAVE", "WONT_HAVE"),
    estimate: fc.constantFrom(undefined, 0, 1, 2.5, 1.25, 0.333),
    labels: fc.subarray(["zeta", "alpha", "mid"]),
  });
  /** Both sides right after the job's write, and the bases the state held then. */
  const written = (fields: Partial<WorkItem>) => {
    const t = story(fields);
    const g = copyOf(t);
    return {
      t,
      g,
      state: { tinypm: tinypmSnapshot(mapping, t), target: targetSnapshot(mapping, g) },
    };
  };

  it("property: random items, state lost — the rebuilt bases are the state's, the plan empty", () => {
    fc.assert(
      fc.property(itemArb, (fields) => {
        const { t, g, state } = written(fields);
        const rebuilt = rebuiltBases(mapping, t, g, "target");
        expect(rebuilt.tinypm.fields).toEqual(state.tinypm.fields);
        expect(rebuilt.target.fields).toEqual(state.target.fields);
        const m = merge(t, g, rebuilt);
        expect([...m.toTarget, ...m.toTinypm, ...m.conflicts]).toEqual([]);
      }),
      { numRuns: 300, seed: 42 },
    );
  });

  it("property: random items, state lost, one edit on either side — the stateful plan", () => {
    const editArb = fc.record({
      side: fc.constantFrom("tinypm" as const, "target" as const),
      field: fc.constantFrom("title", "priority", "estimate", "labels"),
    });
    fc.assert(
      fc.property(itemArb, editArb, (fields, e) => {
        const { t: t0, g: g0, state } = written(fields);
        const before = e.side === "tinypm" ? t0 : g0;
        const onTarget = e.side === "target";
        const values: Record<string, Partial<WorkItem>> = {
          title: { title: `${before.title.trim()} edited` },
          priority: { priority: onTarget ? "Highest" : "WONT_HAVE" },
          estimate: { estimate: (before.estimate ?? 0) + 5 },
          labels: { labels: [...before.labels, "added"] },
        };
        const after = { ...before, ...values[e.field] };
        const t = onTarget ? t0 : after;
        const g = onTarget ? after : g0;
        const want = merge(t, g, state);
        const got = merge(t, g, rebuiltBases(mapping, t, g, "target"));
        expect([got.toTarget, got.toTinypm, got.conflicts]).toEqual([
          want.toTarget,
          want.toTinypm,
          want.conflicts,
        ]);
      }),
      { numRuns: 300, seed: 43 },
    );
  });

  it("property: random items, state lost, one field edited on both sides — the stateful plan", () => {
    const fieldArb = fc.constantFrom("title", "priority", "estimate", "labels", "status");
    fc.assert(
      fc.property(itemArb, fieldArb, fieldArb, fc.boolean(), (fields, both, one, same) => {
        const { t: t0, g: g0, state } = written(fields);
        const tinypmEdits: Record<string, Partial<WorkItem>> = {
          title: { title: `${t0.title.trim()} in tinyPM` },
          priority: { priority: t0.priority === "WONT_HAVE" ? "MUST_HAVE" : "WONT_HAVE" },
          estimate: { estimate: (t0.estimate ?? 0) + 5 },
          labels: { labels: [...t0.labels, "from-tinypm"] },
          status: { status: t0.status === "REJECTED" ? "ACCEPTED" : "REJECTED" },
        };
        const targetEdits: Record<string, Partial<WorkItem>> = {
          title: { title: `${g0.title.trim()} on Jira` },
          priority: { priority: g0.priority === "Highest" ? "Lowest" : "Highest" },
          estimate: { estimate: (g0.estimate ?? 0) + 7 },
          labels: { labels: [...g0.labels, "from-jira"] },
          status: { status: g0.status === "In Progress" ? "To Do" : "In Progress" },
        };
        // Both sides edit `both` (to the same value when `same`); tinyPM edits `one` too.
        const t = { ...t0, ...tinypmEdits[both], ...(one !== both && tinypmEdits[one]) };
        // The same value: the target's spelling of tinyPM's edit of that one field.
        const field = both as keyof WorkItem;
        const sameEdit = mapping.toTarget({ ...t0, ...tinypmEdits[both] });
        const g = same
          ? { ...g0, [field]: sameEdit[field as keyof typeof sameEdit] }
          : { ...g0, ...targetEdits[both] };
        const want = merge(t, g, state);
        const got = merge(t, g, rebuiltBases(mapping, t, g, "target"));
        const noBase = (m: typeof want) => m.conflicts.map(({ base: _b, ...c }) => c);
        expect([got.toTarget, got.toTinypm, noBase(got)]).toEqual([
          want.toTarget,
          want.toTinypm,
          noBase(want),
        ]);
        // Where both sides really moved apart (in tinyPM terms), the field is the one conflict.
        const tv = tinypmSnapshot(mapping, t).fields[both];
        const gv = targetSnapshot(mapping, g).fields[both];
        const moved =
          !sameJson(tv, state.tinypm.fields[both]) && !sameJson(gv, state.target.fields[both]);
        expect(got.conflicts.map((c) => c.field)).toEqual(moved && !sameJson(tv, gv) ? [both] : []);
      }),
      { numRuns: 300, seed: 44 },
    );
  });
});
