import { describe, expect, it } from "vitest";
import type { ResolvedJob } from "../config/load.js";
import { writeForecaster } from "./plan-estimate.js";

/** A job as far as its write limits go: GitHub's published defaults unless `limits` says. */
function job(limits?: { writesPerMinute?: number; writesPerHour?: number }): ResolvedJob {
  return {
    tinypm: { limits: undefined },
    target: { type: "github", importApi: false, limits },
  } as unknown as ResolvedJob;
}

describe("writeForecaster", () => {
  it("foresees GitHub's hourly window for a run's writes at the default limits", () => {
    const f = writeForecaster(job())({ github: 600 });
    // 500 writes paced at 80 a minute, then the 501st waits for the first to be an hour old.
    expect(f?.boundBy).toBe("GitHub's 500 content writes per hour");
    expect(f?.durationMs).toBeGreaterThan(60 * 60_000);
    expect(f?.durationMs).toBeLessThan(62 * 60_000);
  });

  it("follows the job's own limits", () => {
    const f = writeForecaster(job({ writesPerMinute: 100_000, writesPerHour: 1_000_000 }))({
      github: 600,
    });
    expect(f?.durationMs ?? 0).toBeLessThan(1_000);
  });
});
