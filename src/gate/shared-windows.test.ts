import { describe, expect, it } from "vitest";
import { planSharedSlot, type BudgetPlan } from "../core/shared-budget.js";
import type { GateRequest } from "../core/request-gate.js";
import { createGate } from "./gate.js";
import { createMemoryBudget, sharedPlan } from "./shared-windows.js";
import { createVirtualClock } from "./virtual-clock.js";

const plan: BudgetPlan = {
  intervalMs: 100,
  windows: [{ count: 3, ms: 1_000 }],
  answerBoundMs: 5_000,
  pollMs: 50,
};

/** The most arrivals found in any window of `ms` (half-open, as the sandbox counts). */
function busiest(arrivals: readonly number[], ms: number): number {
  const sorted = [...arrivals].sort((a, b) => a - b);
  let most = 0;
  for (const from of sorted) {
    most = Math.max(most, sorted.filter((t) => t >= from && t < from + ms).length);
  }
  return most;
}

describe("planSharedSlot", () => {
  it("spaces booked starts and starts at once on an empty book", () => {
    expect(planSharedSlot(10, [], plan)).toEqual({ at: 10 });
    expect(planSharedSlot(10, [{ start: 5, end: 6 }], plan)).toEqual({ at: 105 });
  });

  it("anchors the window on the answer of the write N before", () => {
    const booked = [
      { start: 0, end: 400 },
      { start: 100, end: 150 },
      { start: 200, end: 250 },
    ];
    // Write 4 may start only a window after write 1 was answered (400 + 1000).
    expect(planSharedSlot(300, booked, plan)).toEqual({ at: 1_400 });
  });

  it("asks again later while the deciding write is in flight, never before its window", () => {
    const booked = [{ start: 0 }, { start: 100, end: 150 }, { start: 200, end: 250 }];
    expect(planSharedSlot(300, booked, plan)).toEqual({ retryAt: 1_000 });
    expect(planSharedSlot(1_200, booked, plan)).toEqual({ retryAt: 1_250 });
  });

  it("counts a write never answered (its process died) as answered at its bound", () => {
    const booked = [{ start: 0 }, { start: 100, end: 150 }, { start: 200, end: 250 }];
    expect(planSharedSlot(6_000, booked, plan)).toEqual({ at: 6_000 });
  });

  it("derives the plan from the gate's write limits, scaled, and shares nothing without them", () => {
    expect(sharedPlan({ readsPerSecond: 5 })).toBeUndefined();
    expect(sharedPlan({ writesPerMinute: 80, writesPerHour: 500, timeScale: 10 })).toEqual({
      intervalMs: 37.5,
      windows: [
        { count: 80, ms: 6_002 },
        { count: 500, ms: 360_002 },
      ],
      answerBoundMs: 45_000,
      pollMs: 100,
    });
  });
});

/** `processes` gates on one token, each sending `writes` writes with uneven answer times. */
async function hammer(o: { processes: number; writes: number; shared: boolean }) {
  const clock = createVirtualClock(0);
  const budget = createMemoryBudget(clock.now);
  const arrivals: number[] = [];
  const limits = { writesPerMinute: 10, writeWindows: "completion" as const, concurrency: 2 };
  const gates = Array.from({ length: o.processes }, () =>
    createGate({
      system: "github",
      limits,
      clock,
      shared: o.shared ? { budget, key: "github https://api.github.com abc" } : undefined,
    }).forRun({ maxWaitMs: Infinity }),
  );
  let n = 0;
  const write = (): GateRequest<number> => {
    const i = n++;
    // Uneven latencies: some writes reach the server late and are answered later still.
    const before = [5, 900, 40, 2_500, 10][i % 5] ?? 0;
    const after = [5, 30, 3_000, 10, 400][(i % 7) % 5] ?? 0;
    return {
      system: "github",
      kind: "write",
      name: `POST /issues ${i}`,
      idempotent: false,
      send: async () => {
        await clock.sleep(before);
        arrivals.push(clock.now());
        await clock.sleep(after);
        return i;
      },
    };
  };
  await Promise.all(
    gates.map((g) => Promise.all(Array.from({ length: o.writes }, () => g.request(write())))),
  );
  return { arrivals, budget, end: clock.now() };
}

describe("a write budget shared by several gates (processes)", () => {
  it("never lets three processes together put more than the limit in any minute", async () => {
    const { arrivals, end } = await hammer({ processes: 3, writes: 20, shared: true });
    expect(arrivals).toHaveLength(60);
    expect(busiest(arrivals, 60_000)).toBeLessThanOrEqual(10);
    // …and still uses the budget: 60 writes at 10 a minute take about 5 minutes, not 15.
    expect(end).toBeLessThan(8 * 60_000);
  });

  it("is what holds them: each process alone keeps its own limit, together they exceed it", async () => {
    const { arrivals } = await hammer({ processes: 3, writes: 20, shared: false });
    expect(busiest(arrivals, 60_000)).toBeGreaterThan(10);
  });

  it("gives a booked slot back when the run stops before the write is sent", async () => {
    const clock = createVirtualClock(0);
    const budget = createMemoryBudget(clock.now);
    const key = "github https://api.github.com k";
    const controller = new AbortController();
    const gate = createGate({
      system: "github",
      limits: { writesPerMinute: 2 },
      clock,
      shared: { budget, key },
    });
    const run = gate.forRun({ signal: controller.signal, maxWaitMs: Infinity });
    const send = (): Promise<number> => Promise.resolve(1);
    const req = { system: "github" as const, kind: "write" as const, idempotent: false, send };
    await run.request({ ...req, name: "w1" });
    await run.request({ ...req, name: "w2" });
    const third = run.request({ ...req, name: "w3" });
    await clock.sleep(1_000);
    controller.abort(new Error("stop"));
    await expect(third).rejects.toMatchObject({ code: "interrupted" });
    await clock.sleep(10);
    expect(budget.booked(key)).toHaveLength(2);
  });

  it("lets the others go on after a process died holding an unanswered write", async () => {
    const clock = createVirtualClock(0);
    const budget = createMemoryBudget(clock.now);
    const key = "github https://api.github.com dead";
    const p: BudgetPlan = { ...plan, windows: [{ count: 1, ms: 1_000 }] };
    const dead = await budget.reserve(key, "write", p);
    expect(dead.granted).toBe(true);
    // The dead process never answers: the next write waits for the bound, then its window.
    const next = await budget.reserve(key, "write", p);
    expect(next).toMatchObject({ granted: false, retryAt: 1_000 });
    await clock.sleep(5_000);
    expect(await budget.reserve(key, "write", p)).toMatchObject({ granted: true, at: 6_000 });
  });
});

/** A memory budget that counts its round trips and the blocks it granted. */
function countingBudget(now: () => number) {
  const budget = createMemoryBudget(now);
  const trips = { reserve: 0, giveBack: 0, blocks: [] as number[] };
  const counted: typeof budget = {
    ...budget,
    reserveBlock: async (...args) => {
      trips.reserve++;
      const block = await budget.reserveBlock(...args);
      if (block.granted) trips.blocks.push(block.slots.length);
      return block;
    },
    giveBack: (ids) => {
      trips.giveBack++;
      return budget.giveBack(ids);
    },
  };
  return { budget: counted, trips };
}

describe("writes booked in blocks", () => {
  const key = "github https://api.github.com blocks";
  const limits = { writesPerMinute: 6, writeWindows: "completion" as const, concurrency: 8 };

  /** `count` writes per gate, all waiting at once; records who arrived when. */
  async function burst(o: { gates: number; count: number }) {
    const clock = createVirtualClock(0);
    const { budget, trips } = countingBudget(clock.now);
    const arrivals: { who: number; at: number }[] = [];
    const gates = Array.from({ length: o.gates }, () =>
      createGate({ system: "github", limits, clock, shared: { budget, key } }).forRun({
        maxWaitMs: Infinity,
      }),
    );
    await Promise.all(
      gates.flatMap((gate, who) =>
        Array.from({ length: o.count }, (_, i) =>
          gate.request({
            system: "github",
            kind: "write",
            name: `POST ${who} ${i}`,
            idempotent: false,
            send: async () => {
              await clock.sleep(i % 2 === 0 ? 300 : 20);
              arrivals.push({ who, at: clock.now() });
              await clock.sleep(50);
              return i;
            },
          }),
        ),
      ),
    );
    return { arrivals, trips, budget, clock };
  }

  it("books several waiting writes in one round trip, and keeps the window", async () => {
    const { arrivals, trips, budget } = await burst({ gates: 1, count: 12 });
    expect(arrivals).toHaveLength(12);
    expect(
      busiest(
        arrivals.map((a) => a.at),
        60_000,
      ),
    ).toBeLessThanOrEqual(6);
    // Half a window (3) at most per block, and fewer bookings than writes.
    expect(Math.max(...trips.blocks)).toBe(3);
    expect(trips.blocks.reduce((a, b) => a + b, 0)).toBe(12);
    expect(trips.reserve).toBeLessThan(12);
    expect(budget.booked(key).every((b) => b.end !== undefined)).toBe(true);
  });

  it("is fair: two workers with writes waiting both get slots in the first window", async () => {
    const { arrivals } = await burst({ gates: 2, count: 10 });
    expect(
      busiest(
        arrivals.map((a) => a.at),
        60_000,
      ),
    ).toBeLessThanOrEqual(6);
    const first = [...arrivals].sort((a, b) => a.at - b.at).slice(0, 6);
    expect(new Set(first.map((a) => a.who))).toEqual(new Set([0, 1]));
  });

  it("gives every slot booked and not used back in one round trip when the run stops", async () => {
    const clock = createVirtualClock(0);
    const { budget, trips } = countingBudget(clock.now);
    const controller = new AbortController();
    const gate = createGate({
      system: "github",
      limits: { writesPerMinute: 6, concurrency: 8 },
      clock,
      shared: { budget, key },
    });
    const run = gate.forRun({ signal: controller.signal, maxWaitMs: Infinity });
    const sent: number[] = [];
    const writes = Array.from({ length: 3 }, (_, i) =>
      run.request({
        system: "github",
        kind: "write",
        name: `w${i}`,
        idempotent: false,
        send: async () => {
          sent.push(i);
          await clock.sleep(10);
          return i;
        },
      }),
    );
    // The first write booked a block for the three waiting; the gate's own spacing (10 s) holds
    // the other two when the run stops.
    await clock.sleep(1_000);
    expect(trips.blocks).toEqual([3]);
    expect(sent).toEqual([0]);
    controller.abort(new Error("stop"));
    await Promise.allSettled(writes);
    await clock.sleep(10);
    // The sent one stays (answered); the two spares went back, together.
    expect(budget.booked(key)).toHaveLength(1);
    expect(budget.booked(key)[0]?.end).toBeDefined();
    expect(trips.giveBack).toBe(1);
  });
});
