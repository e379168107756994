import { describe, expect, it } from "vitest";
import { JIRA_ISSUE_WRITE_WINDOWS } from "./gate-limits.js";
import { createKeyedWindows } from "./keyed-windows.js";

function run(writes: number, windows?: { max: number; ms: number }[]) {
  let clock = 0;
  const pacer = createKeyedWindows({
    now: () => clock,
    windows: windows ?? JIRA_ISSUE_WRITE_WINDOWS,
  });
  const times: number[] = [];
  for (let i = 0; i < writes; i++) {
    const wait = pacer.reserve("WID-1");
    clock += wait;
    times.push(clock);
  }
  return times;
}

function maxInWindow(times: number[], ms: number): number {
  let best = 0;
  for (const t of times) best = Math.max(best, times.filter((x) => x >= t && x < t + ms).length);
  return best;
}

describe("createKeyedWindows", () => {
  it("lets the first 20 writes to an issue through at once", () => {
    expect(run(20).every((t) => t === 0)).toBe(true);
  });

  it("never puts more than 20 writes in 2 s or 100 in 30 s on one issue", () => {
    const times = run(250);
    expect(maxInWindow(times, 2_000)).toBeLessThanOrEqual(20);
    expect(maxInWindow(times, 30_000)).toBeLessThanOrEqual(100);
    expect(times[20]).toBe(2_000);
    expect(times[100]).toBe(30_000);
  });

  it("keeps issues independent", () => {
    const clock = 0;
    const pacer = createKeyedWindows({ now: () => clock, windows: JIRA_ISSUE_WRITE_WINDOWS });
    for (let i = 0; i < 20; i++) pacer.reserve("WID-1");
    expect(pacer.reserve("WID-2")).toBe(0);
    expect(pacer.reserve("WID-1")).toBe(2_000);
  });

  it("forgets idle issues", () => {
    let clock = 0;
    const pacer = createKeyedWindows({ now: () => clock, windows: JIRA_ISSUE_WRITE_WINDOWS });
    pacer.reserve("WID-1");
    clock = 60_000;
    pacer.reserve("WID-2");
    expect(pacer.size()).toBe(1);
  });
});
