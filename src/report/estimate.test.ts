import { describe, expect, it } from "vitest";
import { aboutDuration, estimateDuration, writeSchedule } from "./estimate.js";

const github = { writesPerMinute: 80, writesPerHour: 500 };
const open = { writesPerMinute: 100_000, writesPerHour: 1_000_000 };

describe("writeSchedule", () => {
  it("spreads writes at the minute's pace", () => {
    expect(writeSchedule(0, github).lastMs).toBe(0);
    expect(writeSchedule(80, github)).toEqual({
      lastMs: 60_000,
      delayMs: { writesPerMinute: 60_000, writesPerHour: 0 },
    });
  });

  it("meets the hourly window after 500 writes, then goes on at the minute's pace", () => {
    const s = writeSchedule(700, github);
    // 500 writes in 6 min 15 s, the 501st an hour after the first, 200 more at 80/min.
    expect(s.lastMs).toBe(3_600_000 + 150_000);
    expect(s.delayMs.writesPerHour).toBeGreaterThan(s.delayMs.writesPerMinute);
  });
});

describe("estimateDuration", () => {
  it("names the binding limit: 1,000 writes at 80 a minute take about 13 min", () => {
    const e = estimateDuration({
      writes: { github: 1000 },
      limits: { github: { writesPerMinute: 80, writesPerHour: 100_000 } },
      mode: "sync",
    });
    expect(e).toEqual({
      durationMs: 12.5 * 60_000,
      boundBy: "GitHub's 80 content writes per minute",
      text: "about 13 min, bound by GitHub's 80 content writes per minute",
    });
  });

  it("with GitHub's default hourly limit, 700 writes take over an hour; a migration gets the import API hint", () => {
    const e = estimateDuration({
      writes: { github: 700, tinypm: 3 },
      limits: { github, tinypm: open },
      mode: "migrate",
    });
    expect(e?.text).toBe("about 1 h 3 min, bound by GitHub's 500 content writes per hour");
    expect(e?.hint).toContain("`importApi: true`");
    // Not with the import API on already, and not for a sync.
    expect(
      estimateDuration({
        writes: { github: 700 },
        limits: { github },
        mode: "migrate",
        importApi: true,
      })?.hint,
    ).toBeUndefined();
    expect(
      estimateDuration({ writes: { github: 700 }, limits: { github }, mode: "sync" })?.hint,
    ).toBeUndefined();
  });

  it("adds up systems, and says nothing for systems without known limits", () => {
    expect(
      estimateDuration({ writes: { github: 10 }, limits: { github }, mode: "migrate" })?.text,
    ).toBe("under a minute, bound by GitHub's 80 content writes per minute");
    expect(estimateDuration({ writes: { jira: 5 }, limits: {}, mode: "sync" })).toBeUndefined();
    expect(estimateDuration({ writes: {}, limits: { github }, mode: "sync" })).toBeUndefined();
    const e = estimateDuration({
      writes: { jira: 30, tinypm: 9 },
      limits: {
        jira: { writesPerMinute: 10, writesPerHour: 1000 },
        tinypm: { writesPerMinute: 3, writesPerHour: 1000 },
      },
      mode: "sync",
    });
    expect(e?.durationMs).toBe(3 * 60_000 + 3 * 60_000);
    expect(e?.boundBy).toBe("Jira's 10 writes per minute");
  });

  it("groups a large limit's digits", () => {
    const e = estimateDuration({
      writes: { jira: 5 },
      limits: { jira: { writesPerMinute: 1e9, writesPerHour: 1e9 } },
      mode: "migrate",
    });
    expect(e?.boundBy).toBe("Jira's 1,000,000,000 writes per minute");
  });

  it("rounds durations for people", () => {
    expect(aboutDuration(59_000)).toBe("under a minute");
    expect(aboutDuration(12.5 * 60_000)).toBe("about 13 min");
    expect(aboutDuration(3_600_000)).toBe("about 1 h");
    expect(aboutDuration(3_720_000)).toBe("about 1 h 2 min");
  });
});
