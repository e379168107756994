import { describe, expect, it } from "vitest";
import {
  createCompletionPacer,
  nextSlot,
  slotList,
  planPacing,
  type CompletionPacerOptions,
} from "./completion-pacer.js";

function fakeClock() {
  let t = 0;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
    sleep: (ms: number) => {
      t += ms;
      return Promise.resolve();
    },
  };
}

/** Runs `n` sequential writes that each take `latency` ms; returns their start and end times. */
async function run(
  n: number,
  latency: number | ((i: number) => number),
  opts: CompletionPacerOptions = {},
) {
  const latencyOf = typeof latency === "number" ? () => latency : latency;
  const clock = fakeClock();
  const pacer = createCompletionPacer({ ...opts, now: clock.now, sleep: clock.sleep });
  const writes: { start: number; end: number }[] = [];
  for (let i = 0; i < n; i++) {
    const release = await pacer.acquire();
    const start = clock.now();
    clock.advance(latencyOf(i));
    release();
    writes.push({ start, end: clock.now() });
  }
  return { writes, pacer };
}

describe("planPacing", () => {
  it("spaces writes at least 60/80/2 s apart at the default rate, with minute and hour windows", () => {
    const plan = planPacing({});
    expect(plan.intervalMs).toBe(375);
    expect(plan.windows.map((w) => w.count)).toEqual([80, 500]);
  });

  it("runs the clock timeScale times faster", () => {
    expect(planPacing({ timeScale: 60 }).intervalMs).toBeCloseTo(6.25);
  });

  it("refuses non-positive limits, naming the option", () => {
    expect(() => planPacing({ writesPerMinute: 0 })).toThrow(/writesPerMinute/);
    expect(() => planPacing({ timeScale: -1 })).toThrow(/timeScale/);
  });
});

describe("nextSlot", () => {
  const plan = { intervalMs: 1000, windows: [{ count: 2, ms: 10_000 }] };
  it("grants at once when idle", () => {
    expect(nextSlot({ now: 5, slots: slotList([]), plan })).toBe(5);
  });
  it("waits one interval after the previous start", () => {
    expect(nextSlot({ now: 100, slots: slotList([{ start: 0, end: 50 }]), plan })).toBe(1000);
  });
  it("waits one window after the answer of the write N back", () => {
    const slots = slotList([
      { start: 0, end: 300 },
      { start: 1000, end: 1300 },
    ]);
    expect(nextSlot({ now: 2000, slots, plan })).toBe(10_300);
  });
  it("waits for an unfinished write N back", () => {
    expect(
      nextSlot({ now: 2000, slots: slotList([{ start: 0 }, { start: 1000, end: 1 }]), plan }),
    ).toBeUndefined();
  });
});

describe("createCompletionPacer", () => {
  it("keeps every sliding minute under 80 on GitHub's side, whatever the latency", async () => {
    const { writes } = await run(300, 400, { writesPerHour: 1e9 });
    for (let i = 80; i < writes.length; i++) {
      // GitHub saw write i−80 before its end and write i after its start.
      expect(writes[i]!.start - writes[i - 80]!.end).toBeGreaterThanOrEqual(60_000);
    }
  });

  it("never starts two writes closer than the minimum gap", async () => {
    const { writes } = await run(200, 10, { writesPerHour: 1e9 });
    for (let i = 1; i < writes.length; i++) {
      expect(writes[i]!.start - writes[i - 1]!.start).toBeGreaterThanOrEqual(375);
    }
  });

  it("achieves at least 95% of 80 per minute at GitHub-like latencies", async () => {
    const { writes } = await run(400, 600, { writesPerHour: 1e9 });
    const minutes = (writes.at(-1)!.start - writes[0]!.start) / 60_000;
    expect((writes.length - 1) / minutes / 80).toBeGreaterThanOrEqual(0.95);
  });

  it("keeps any sliding hour at or under 500", async () => {
    const { writes } = await run(1100, 200);
    for (let i = 500; i < writes.length; i++) {
      expect(writes[i]!.start - writes[i - 500]!.end).toBeGreaterThanOrEqual(3_600_000);
    }
  });

  it("keeps the twelfth hourly burst as dense as the first under jittery latencies", async () => {
    // Mostly fast answers with a slow one now and then, as on a loaded machine: followed write by
    // write, each burst would inherit the previous bursts' slow answers and thin out.
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const { writes } = await run(6000, () =>
      random() < 0.1 ? 500 + 2500 * random() : 60 + 60 * random(),
    );
    for (let i = 500; i < writes.length; i++) {
      expect(writes[i]!.start - writes[i - 500]!.end).toBeGreaterThanOrEqual(3_600_000);
    }
    for (let i = 80; i < writes.length; i++) {
      expect(writes[i]!.start - writes[i - 80]!.end).toBeGreaterThanOrEqual(60_000);
    }
    // Per burst of 500: writes per minute over its first 480 (six whole minutes' worth).
    const rates = Array.from({ length: 12 }, (_, b) => {
      const first = writes[b * 500]!.start;
      return 480 / ((writes[b * 500 + 480]!.start - first) / 60_000);
    });
    expect(rates[0]!).toBeGreaterThan(0.95 * 80);
    expect(rates[11]!).toBeGreaterThan(0.99 * rates[0]!);
    // Each burst starts about an hour after the previous one, not later and later.
    const hours = (writes[5500]!.start - writes[0]!.start) / 3_600_000;
    expect(hours).toBeLessThan(11.1);
  });

  it("serves concurrent callers in order, one slot each", async () => {
    const clock = fakeClock();
    const pacer = createCompletionPacer({
      writesPerMinute: 30,
      now: clock.now,
      sleep: clock.sleep,
    });
    const starts: number[] = [];
    await Promise.all(
      [1, 2, 3].map(async () => {
        const release = await pacer.acquire();
        starts.push(clock.now());
        release();
      }),
    );
    expect(starts).toEqual([0, 1000, 2000]);
    expect(pacer.state().granted).toBe(3);
  });
});
