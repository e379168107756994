import { describe, expect, it } from "vitest";
import { createPacer, nextSlot, planPacing } from "./pacer.js";

function fakeClock() {
  let t = 0;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: (ms: number) => {
      slept.push(ms);
      t += ms;
      return Promise.resolve();
    },
    slept,
  };
}

describe("planPacing", () => {
  it("spaces writes just over 60/80 s at the default rate", () => {
    const plan = planPacing({});
    expect(plan.intervalMs).toBeCloseTo(60_000 / (80 * 0.98));
    expect(60_000 / plan.intervalMs / 80).toBeGreaterThanOrEqual(0.95);
    expect(plan.perHour).toBe(500);
  });

  it("runs the clock timeScale times faster", () => {
    expect(planPacing({ timeScale: 60 }).intervalMs).toBeCloseTo(60_000 / (80 * 0.98) / 60);
  });

  it("refuses non-positive limits, naming the option", () => {
    expect(() => planPacing({ writesPerMinute: 0 })).toThrow(/writesPerMinute/);
    expect(() => planPacing({ timeScale: -1 })).toThrow(/timeScale/);
  });
});

describe("nextSlot", () => {
  const plan = { intervalMs: 1000, hourWindowMs: 10_000, perHour: 3 };
  it("grants at once when idle", () => {
    expect(nextSlot({ now: 5, last: undefined, recent: [], plan })).toBe(5);
  });
  it("waits one interval after the previous slot", () => {
    expect(nextSlot({ now: 100, last: 0, recent: [0], plan })).toBe(1000);
  });
  it("waits for the hour window once the hourly count is used", () => {
    expect(nextSlot({ now: 2000, last: 2000, recent: [0, 1000, 2000], plan })).toBe(10_000);
  });
});

describe("createPacer", () => {
  it("never lets more than perMinute writes into any minute", async () => {
    const clock = fakeClock();
    const pacer = createPacer({ writesPerHour: 10_000, now: clock.now, sleep: clock.sleep });
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      await pacer.acquire();
      times.push(clock.now());
    }
    for (let i = 80; i < times.length; i++) {
      expect(times[i]! - times[i - 80]!).toBeGreaterThanOrEqual(60_000);
    }
    expect(pacer.state().granted).toBe(200);
  });

  it("keeps any sliding hour at or under perHour", async () => {
    const clock = fakeClock();
    const pacer = createPacer({ now: clock.now, sleep: clock.sleep });
    const times: number[] = [];
    for (let i = 0; i < 1200; i++) {
      await pacer.acquire();
      times.push(clock.now());
    }
    for (let i = 500; i < times.length; i++) {
      expect(times[i]! - times[i - 500]!).toBeGreaterThanOrEqual(3_600_000);
    }
  });

  it("reserves slots synchronously for concurrent callers", async () => {
    const clock = fakeClock();
    const pacer = createPacer({
      writesPerMinute: 60,
      utilization: 1,
      now: clock.now,
      sleep: clock.sleep,
    });
    await Promise.all([pacer.acquire(), pacer.acquire(), pacer.acquire()]);
    expect(clock.slept).toEqual([1000, 1000]);
  });
});
