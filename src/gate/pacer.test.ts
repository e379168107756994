import { describe, expect, it } from "vitest";
import type { RateWindow } from "./pacer.js";
import { createPacer } from "./pacer.js";

/** The most starts found in any half-open window [s, s + windowMs) beginning at a start. */
function maxInWindow(starts: readonly number[], windowMs: number): number {
  let most = 0;
  for (const [i, s] of starts.entries()) {
    let n = 0;
    for (let j = i; j < starts.length && (starts[j] ?? Infinity) < s + windowMs; j++) n++;
    most = Math.max(most, n);
  }
  return most;
}

/** Reserves `count` starts for a caller that is always ready (a saturated lane). */
function saturate(windows: RateWindow[], count: number): number[] {
  const pacer = createPacer(windows);
  const starts: number[] = [];
  let now = 0;
  for (let i = 0; i < count; i++) {
    now = pacer.reserve(now);
    starts.push(now);
  }
  return starts;
}

describe("createPacer", () => {
  it("spaces starts evenly and fills each minute to exactly its limit", () => {
    const starts = saturate([{ limit: 80, windowMs: 60_000 }], 240);
    expect(starts.slice(0, 3)).toEqual([0, 750, 1_500]);
    expect(maxInWindow(starts, 60_000)).toBe(80);
    expect(starts.filter((s) => s < 180_000)).toHaveLength(240);
  });

  it("keeps the hourly limit too, and uses it fully", () => {
    const starts = saturate(
      [
        { limit: 80, windowMs: 60_000 },
        { limit: 500, windowMs: 3_600_000 },
      ],
      1_100,
    );
    expect(maxInWindow(starts, 60_000)).toBe(80);
    expect(maxInWindow(starts, 3_600_000)).toBe(500);
    expect(starts.filter((s) => s < 3_600_000)).toHaveLength(500);
    expect(starts[500]).toBe(3_600_000);
    expect(starts.filter((s) => s < 7_200_000)).toHaveLength(1_000);
  });

  it("lets calls through at once without limits, and gives a cancelled start back", () => {
    expect(saturate([], 3)).toEqual([0, 0, 0]);
    const pacer = createPacer([{ limit: 1, windowMs: 1_000 }]);
    const first = pacer.reserve(0);
    const second = pacer.reserve(0);
    expect([first, second]).toEqual([0, 1_000]);
    pacer.cancel(second);
    expect(pacer.reserve(10)).toBe(1_000);
    expect(pacer.reserve(5_000)).toBe(5_000);
  });
});
