import { describe, expect, it } from "vitest";
import type { JsonValue, WorkItemFieldName } from "../../core/model.js";
import {
  mergePair,
  type ConflictPolicy,
  type Direction,
  type MergeInput,
  type Side,
} from "./merge.js";
import type { Snapshot } from "./snapshot.js";

const snap = (
  title: string,
  extra: { comments?: string[]; time?: Record<string, number> } = {},
): Snapshot => ({
  fields: { title, status: "PENDING" } satisfies Record<string, JsonValue>,
  comments: extra.comments ?? [],
  timeEntries: extra.time ?? {},
});

const FIELDS: readonly WorkItemFieldName[] = ["title", "status"];

function merge(o: {
  base: string;
  tinypm: string;
  target: string;
  policy?: ConflictPolicy | undefined;
  direction?: Direction | undefined;
  newest?: Side | undefined;
  resolved?: Side | undefined;
}): ReturnType<typeof mergePair> {
  const input: MergeInput = {
    fieldNames: FIELDS,
    tinypm: snap(o.tinypm),
    target: snap(o.target),
    baseTinypm: snap(o.base),
    baseTarget: snap(o.base),
    direction: o.direction ?? "both",
    policy: o.policy ?? "manual",
    newest: o.newest,
    resolved: o.resolved === undefined ? undefined : { title: o.resolved },
  };
  return mergePair(input);
}

describe("mergePair, field by field", () => {
  it.each([
    // row, base, tinyPM, target, policy, direction, newest, resolved → to target, to tinyPM, conflict
    [
      "unchanged on both sides",
      "a",
      "a",
      "a",
      "manual",
      "both",
      undefined,
      undefined,
      [],
      [],
      undefined,
    ],
    [
      "changed on tinyPM only → target",
      "a",
      "b",
      "a",
      "manual",
      "both",
      undefined,
      undefined,
      ["title"],
      [],
      undefined,
    ],
    [
      "changed on the target only → tinyPM",
      "a",
      "a",
      "b",
      "manual",
      "both",
      undefined,
      undefined,
      [],
      ["title"],
      undefined,
    ],
    [
      "changed on both to the same value",
      "a",
      "b",
      "b",
      "manual",
      "both",
      undefined,
      undefined,
      [],
      [],
      undefined,
    ],
    [
      "conflict, manual → parked, nothing written",
      "a",
      "b",
      "c",
      "manual",
      "both",
      undefined,
      undefined,
      [],
      [],
      "parked",
    ],
    [
      "conflict, policy tinypm",
      "a",
      "b",
      "c",
      "tinypm",
      "both",
      undefined,
      undefined,
      ["title"],
      [],
      "tinypm",
    ],
    [
      "conflict, policy target",
      "a",
      "b",
      "c",
      "target",
      "both",
      undefined,
      undefined,
      [],
      ["title"],
      "target",
    ],
    [
      "conflict, newest = target",
      "a",
      "b",
      "c",
      "newest",
      "both",
      "target",
      undefined,
      [],
      ["title"],
      "target",
    ],
    [
      "conflict, newest = tinyPM",
      "a",
      "b",
      "c",
      "newest",
      "both",
      "tinypm",
      undefined,
      ["title"],
      [],
      "tinypm",
    ],
    [
      "conflict, manual, resolved for the target",
      "a",
      "b",
      "c",
      "manual",
      "both",
      undefined,
      "target",
      [],
      ["title"],
      "target",
    ],
    [
      "conflict, manual, resolved for tinyPM",
      "a",
      "b",
      "c",
      "manual",
      "both",
      undefined,
      "tinypm",
      ["title"],
      [],
      "tinypm",
    ],
    [
      "to-target: a target change does not flow back",
      "a",
      "a",
      "b",
      "manual",
      "to-target",
      undefined,
      undefined,
      [],
      [],
      undefined,
    ],
    [
      "to-target: both changed → tinyPM wins",
      "a",
      "b",
      "c",
      "manual",
      "to-target",
      undefined,
      undefined,
      ["title"],
      [],
      "tinypm",
    ],
    [
      "to-tinypm: a tinyPM change does not flow out",
      "a",
      "b",
      "a",
      "manual",
      "to-tinypm",
      undefined,
      undefined,
      [],
      [],
      undefined,
    ],
    [
      "to-tinypm: both changed → target wins",
      "a",
      "b",
      "c",
      "manual",
      "to-tinypm",
      undefined,
      undefined,
      [],
      ["title"],
      "target",
    ],
  ] as const)(
    "%s",
    (
      _row,
      base,
      tinypm,
      target,
      policy,
      direction,
      newest,
      resolved,
      toTarget,
      toTinypm,
      conflict,
    ) => {
      const r = merge({ base, tinypm, target, policy, direction, newest, resolved });
      expect(r.toTarget).toEqual(toTarget);
      expect(r.toTinypm).toEqual(toTinypm);
      expect(r.conflicts).toEqual(
        conflict === undefined
          ? []
          : [{ field: "title", base, tinypm, target, resolution: conflict }],
      );
    },
  );
});

describe("mergePair, comments and time entries as sets", () => {
  const run = (o: {
    bt?: string[];
    bg?: string[];
    t?: string[];
    g?: string[];
    btime?: Record<string, number>;
    ttime?: Record<string, number>;
    gtime?: Record<string, number>;
    direction?: Direction;
  }): ReturnType<typeof mergePair> =>
    mergePair({
      fieldNames: FIELDS,
      tinypm: snap("x", { comments: o.t ?? [], time: o.ttime ?? {} }),
      target: snap("x", { comments: o.g ?? [], time: o.gtime ?? {} }),
      baseTinypm: snap("x", { comments: o.bt ?? [], time: o.btime ?? {} }),
      baseTarget: snap("x", { comments: o.bg ?? [], time: o.btime ?? {} }),
      direction: o.direction ?? "both",
      policy: "manual",
    });

  it.each([
    [
      "a new tinyPM comment crosses",
      { bt: ["c1"], bg: ["c1"], t: ["c1", "c2"], g: ["c1"] },
      ["c2"],
      [],
    ],
    [
      "a new target comment crosses",
      { bt: ["c1"], bg: ["c1"], t: ["c1"], g: ["c1", "c3"] },
      [],
      ["c3"],
    ],
    ["a comment on both sides is not copied", { t: ["c1"], g: ["c1"] }, [], []],
    [
      "a comment deleted on one side is not brought back",
      { bt: ["c1"], bg: ["c1"], t: [], g: ["c1"] },
      [],
      [],
    ],
    [
      "to-target: a target comment stays there",
      { g: ["c3"], direction: "to-target" as const },
      [],
      [],
    ],
  ])("%s", (_row, input, toTarget, toTinypm) => {
    const r = run(input);
    expect(r.commentsToTarget).toEqual(toTarget);
    expect(r.commentsToTinypm).toEqual(toTinypm);
  });

  it.each([
    ["a new tinyPM entry crosses", { ttime: { "bob|2024-01-02": 2 } }, ["bob|2024-01-02"], []],
    ["a new target entry crosses", { gtime: { "bob|2024-01-02": 2 } }, [], ["bob|2024-01-02"]],
    [
      "hours changed on the target only flow to tinyPM",
      { btime: { "bob|d": 1 }, ttime: { "bob|d": 1 }, gtime: { "bob|d": 3 } },
      [],
      ["bob|d"],
    ],
    [
      "hours changed on both: tinyPM wins (time is never destroyed)",
      { btime: { "bob|d": 1 }, ttime: { "bob|d": 2 }, gtime: { "bob|d": 3 } },
      ["bob|d"],
      [],
    ],
    [
      "an entry lost on one side is not deleted on the other",
      { btime: { "bob|d": 1 }, ttime: {}, gtime: { "bob|d": 1 } },
      [],
      [],
    ],
    ["equal entries are left alone", { ttime: { "bob|d": 1 }, gtime: { "bob|d": 1 } }, [], []],
  ])("%s", (_row, input, toTarget, toTinypm) => {
    const r = run(input);
    expect(r.timeToTarget).toEqual(toTarget);
    expect(r.timeToTinypm).toEqual(toTinypm);
  });
});

describe("mergePair, a one-way migrate of a two-way job (keepTargetEdits)", () => {
  const run = (o: {
    base: string;
    tinypm: string;
    target: string;
    policy?: ConflictPolicy;
    gtime?: Record<string, number>;
  }): ReturnType<typeof mergePair> =>
    mergePair({
      fieldNames: FIELDS,
      tinypm: snap(o.tinypm),
      target: snap(o.target, { time: o.gtime ?? {}, comments: ["new on target"] }),
      baseTinypm: snap(o.base),
      baseTarget: snap(o.base),
      direction: "to-target",
      policy: o.policy ?? "manual",
      keepTargetEdits: true,
    });

  it("keeps a target-only edit on the target, writing nothing to tinyPM", () => {
    const m = run({ base: "a", tinypm: "a", target: "b", gtime: { "u 2026-01-01": 2 } });
    expect(m.toTinypm).toEqual([]);
    expect(m.toTarget).toEqual([]);
    expect(m.keptOnTarget).toEqual(["title"]);
    expect(m.timeKeptOnTarget).toEqual(["u 2026-01-01"]);
    expect(m.commentsToTinypm).toEqual([]);
    expect(m.timeToTinypm).toEqual([]);
  });

  it("still carries a tinyPM-only change to the target", () => {
    const m = run({ base: "a", tinypm: "b", target: "a" });
    expect(m.toTarget).toEqual(["title"]);
    expect(m.keptOnTarget).toEqual([]);
  });

  it.each([
    ["manual", "parked", []],
    ["tinypm", "tinypm", []],
    ["target", "target", ["title"]],
  ] as const)("decides a conflict by the policy (%s) as sync does", (policy, resolution, kept) => {
    const m = run({ base: "a", tinypm: "b", target: "c", policy });
    expect(m.conflicts.map((c) => c.resolution)).toEqual([resolution]);
    expect(m.toTarget).toEqual(resolution === "tinypm" ? ["title"] : []);
    expect(m.toTinypm).toEqual([]);
    expect(m.keptOnTarget).toEqual(kept);
  });

  it("without keepTargetEdits, a one-way run lets tinyPM win every conflict", () => {
    const m = mergePair({
      fieldNames: FIELDS,
      tinypm: snap("b"),
      target: snap("c"),
      baseTinypm: snap("a"),
      baseTarget: snap("a"),
      direction: "to-target",
      policy: "manual",
    });
    expect(m.conflicts.map((c) => c.resolution)).toEqual(["tinypm"]);
    expect(m.keptOnTarget).toBeUndefined();
  });
});
