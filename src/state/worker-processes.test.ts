import { describe, expect, it } from "vitest";
import type { WorkerRecord } from "./lease.js";
import { silentFor, workerProcesses } from "./worker-processes.js";

const record = (over: Partial<WorkerRecord>): WorkerRecord => ({
  id: "x",
  host: "h1",
  pid: 10,
  startedAt: "2026-01-01T10:00:00.000Z",
  heartbeatAt: "2026-01-01T10:05:00.000Z",
  silentMs: 1000,
  alive: true,
  jobs: [],
  ...over,
});

describe("workerProcesses", () => {
  it("makes one worker of a process's memberships: oldest start, newest beat, every job", () => {
    const out = workerProcesses([
      record({
        id: "run",
        startedAt: "2026-01-01T10:03:00.000Z",
        silentMs: 200,
        heartbeatAt: "2026-01-01T10:05:01.000Z",
        jobs: ["b"],
      }),
      record({ id: "serve", jobs: [] }),
      record({
        id: "other",
        pid: 11,
        startedAt: "2026-01-01T09:00:00.000Z",
        alive: false,
        silentMs: 90_000,
      }),
      record({ id: "run2", jobs: ["a", "b"] }),
    ]);
    expect(out).toEqual([
      {
        id: "h1:11",
        host: "h1",
        pid: 11,
        startedAt: "2026-01-01T09:00:00.000Z",
        heartbeatAt: "2026-01-01T10:05:00.000Z",
        silentMs: 90_000,
        alive: false,
        jobs: [],
      },
      {
        id: "h1:10",
        host: "h1",
        pid: 10,
        startedAt: "2026-01-01T10:00:00.000Z",
        heartbeatAt: "2026-01-01T10:05:01.000Z",
        silentMs: 200,
        alive: true,
        jobs: ["a", "b"],
      },
    ]);
  });

  it("keeps processes of one pid on two hosts apart, and an empty list empty", () => {
    expect(
      workerProcesses([record({ host: "a" }), record({ host: "b" })]).map((w) => w.host),
    ).toEqual(["a", "b"]);
    expect(workerProcesses([])).toEqual([]);
  });

  it("tells processes apart by their worker id: one pid on one host restarted is two workers", () => {
    const out = workerProcesses([
      record({ id: "m1", workerId: "h1:10:2026-01-01T09:00:00.000Z", alive: false }),
      record({ id: "m2", workerId: "h1:10:2026-01-01T10:00:00.000Z", jobs: ["b"] }),
      record({ id: "m3", workerId: "h1:10:2026-01-01T10:00:00.000Z", jobs: ["c"] }),
    ]);
    expect(out.map((w) => [w.id, w.jobs])).toEqual([
      ["h1:10:2026-01-01T09:00:00.000Z", []],
      ["h1:10:2026-01-01T10:00:00.000Z", ["b", "c"]],
    ]);
  });
});

describe("silentFor", () => {
  it("says how long ago in the largest whole unit", () => {
    expect(silentFor(0)).toBe("now");
    expect(silentFor(999)).toBe("now");
    expect(silentFor(3_400)).toBe("3 s ago");
    expect(silentFor(119_999)).toBe("119 s ago");
    expect(silentFor(120_000)).toBe("2 min ago");
    expect(silentFor(7_200_000)).toBe("2 h ago");
  });
});
