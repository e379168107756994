import { describe, expect, it } from "vitest";
import type { RunRecord } from "../../src/state/store.js";
import { overlappingRuns } from "./workers-checks.js";

const run = (over: Partial<RunRecord>): RunRecord => ({
  id: "r",
  job: "gh",
  mode: "sync",
  pid: 7,
  startedAt: "2026-01-01T10:00:00.000Z",
  finishedAt: "2026-01-01T10:01:00.000Z",
  outcome: "ok",
  counts: {},
  apiCalls: {},
  ...over,
});

describe("overlappingRuns", () => {
  it("tells two processes with one pid apart by their worker id (two hosts or containers)", () => {
    const a = run({ id: "a", host: "h1", workerId: "h1:7:2026-01-01T09:00:00.000Z" });
    const b = run({
      id: "b",
      host: "h2",
      workerId: "h2:7:2026-01-01T09:00:00.000Z",
      startedAt: "2026-01-01T10:00:30.000Z",
      finishedAt: "2026-01-01T10:02:00.000Z",
    });
    expect(overlappingRuns([a, b])).toHaveLength(1);
    expect(overlappingRuns([a, b])[0]).toMatch(/h1:7:.* overlaps b \(h2:7:/);
  });

  it("finds no overlap in one worker's runs, in runs one after the other, or of other jobs", () => {
    const w = "h1:7:2026-01-01T09:00:00.000Z";
    const a = run({ id: "a", workerId: w });
    expect(overlappingRuns([a, run({ id: "b", workerId: w, startedAt: a.startedAt })])).toEqual([]);
    const later = run({
      id: "c",
      workerId: "h2:8:x",
      startedAt: "2026-01-01T10:01:00.000Z",
      finishedAt: "2026-01-01T10:02:00.000Z",
    });
    expect(overlappingRuns([a, later])).toEqual([]);
    expect(overlappingRuns([a, run({ id: "d", job: "jr", workerId: "h2:8:x" })])).toEqual([]);
  });

  it("falls back to host and pid for runs journalled without a worker id", () => {
    const a = run({ id: "a", pid: 7 });
    expect(overlappingRuns([a, run({ id: "b", pid: 8 })])).toHaveLength(1);
    expect(overlappingRuns([a, run({ id: "b", pid: 7 })])).toEqual([]);
  });
});
