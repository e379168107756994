import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  blockSize,
  bookedWritesNeeded,
  LATE_SEND_MS,
  MAX_BLOCK,
  planSharedSlot,
  planSharedSlots,
  type BookedWrite,
  type BudgetPlan,
} from "./shared-budget.js";

const plan: BudgetPlan = {
  intervalMs: 100,
  windows: [{ count: 3, ms: 1_000 }],
  answerBoundMs: 5_000,
  pollMs: 50,
};

describe("planSharedSlots", () => {
  it("books consecutive slots, spaced, on an empty book", () => {
    expect(planSharedSlots(10, [], plan, 3)).toEqual({ at: [10, 110, 210] });
  });

  it("stops at the first slot whose deciding write is in flight (one of the block)", () => {
    // N = 3: a fourth slot would be decided by the first of the block, not answered yet.
    expect(planSharedSlots(10, [], plan, 8)).toEqual({ at: [10, 110, 210] });
    const booked = [{ start: 0, end: 50 }, { start: 100 }, { start: 200, end: 260 }];
    // The first answered: one slot a window after its answer; the next is decided by one in flight.
    expect(planSharedSlots(300, booked, plan, 4)).toEqual({ at: [1_050] });
  });

  it("asks again when not one slot is free, as a single booking would", () => {
    const booked = [{ start: 0 }, { start: 100, end: 150 }, { start: 200, end: 250 }];
    expect(planSharedSlots(300, booked, plan, 5)).toEqual(planSharedSlot(300, booked, plan));
    expect(planSharedSlots(300, booked, plan, 5)).toEqual({ retryAt: 1_000 });
  });

  it("books one slot at least and never more than asked", () => {
    expect(planSharedSlots(0, [], plan, 0)).toEqual({ at: [0] });
    expect(planSharedSlots(0, [], plan, 2)).toEqual({ at: [0, 100] });
  });

  it("is exactly what single bookings one after the other at the same time would book", () => {
    const write = fc.record({
      start: fc.integer({ min: 0, max: 20_000 }),
      end: fc.option(fc.integer({ min: 0, max: 8_000 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        fc.array(write, { maxLength: 8 }),
        fc.integer({ min: 0, max: 30_000 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 5 }),
        (raw, now, count, max) => {
          const p: BudgetPlan = { ...plan, windows: [{ count, ms: 1_000 }] };
          // A book as the store keeps it: starts never decreasing, answers after their starts.
          const starts = raw.map((w) => w.start).sort((a, b) => a - b);
          const booked: BookedWrite[] = raw.map((w, i) => {
            const start = starts[i] ?? 0;
            return { start, end: w.end === undefined ? undefined : start + w.end };
          });
          const block = planSharedSlots(now, booked, p, max);
          const single: BookedWrite[] = [...booked];
          const at: number[] = [];
          let retryAt: number | undefined;
          for (let i = 0; i < max && retryAt === undefined; i++) {
            const d = planSharedSlot(now, single.slice(-bookedWritesNeeded(p)), p);
            if ("retryAt" in d) retryAt = d.retryAt;
            else {
              at.push(d.at);
              single.push({ start: d.at });
            }
          }
          expect(block).toEqual(at.length > 0 ? { at } : { retryAt });
        },
      ),
    );
  });
});

describe("blockSize", () => {
  const windows = (count: number): BudgetPlan => ({ ...plan, windows: [{ count, ms: 60_000 }] });

  it("never books more than is waiting, nor more than MAX_BLOCK", () => {
    expect(blockSize(windows(80), 1)).toBe(1);
    expect(blockSize(windows(80), 5)).toBe(5);
    expect(blockSize(windows(80), 500)).toBe(MAX_BLOCK);
    expect(blockSize(windows(80), 0)).toBe(1);
  });

  it("leaves half of the smallest window to the other workers", () => {
    expect(blockSize(windows(6), 50)).toBe(3);
    expect(blockSize(windows(3), 50)).toBe(1);
    expect(blockSize(windows(1), 50)).toBe(1);
    const two: BudgetPlan = {
      ...plan,
      windows: [
        { count: 80, ms: 60_000 },
        { count: 4, ms: 3_600_000 },
      ],
    };
    expect(blockSize(two, 50)).toBe(2);
  });
});

/** The most arrivals found in any window of `ms` (half-open, as the services count). */
function busiest(arrivals: readonly number[], ms: number): number {
  const sorted = [...arrivals].sort((a, b) => a - b);
  let most = 0;
  let from = 0;
  for (let to = 0; to < sorted.length; to++) {
    while ((sorted[from] ?? 0) + ms <= (sorted[to] ?? 0)) from++;
    most = Math.max(most, to - from + 1);
  }
  return most;
}

interface Step {
  readonly gap: number;
  readonly max: number;
  /** Per slot: given back unsent, or sent this late, arriving this long after it was sent. */
  readonly fates: readonly {
    readonly giveBack: boolean;
    readonly late: number;
    readonly flight: number;
    /** How long after its arrival its answer is recorded; undefined: never (process died). */
    readonly record: number | undefined;
  }[];
}

/**
 * Workers booking blocks, sending each slot between its start and LATE_SEND_MS after it (or
 * giving it back), answers recorded late or never — simulated in store time. `broken` records
 * each answer at its booked start, before the write arrives: the in-flight bound ignored.
 */
function simulate(steps: readonly Step[], p: BudgetPlan, broken: boolean): number[] {
  const book: { id: number; start: number; end?: number | undefined }[] = [];
  const events: { at: number; id: number; what: "answer" | "giveBack" }[] = [];
  const arrivals: number[] = [];
  let now = 0;
  let next = 1;
  for (const step of steps) {
    now += step.gap;
    // What happened up to now, in time order: answers recorded, slots given back.
    events.sort((a, b) => a.at - b.at);
    while ((events[0]?.at ?? Infinity) <= now) {
      const e = events.shift();
      if (e === undefined) break;
      const index = book.findIndex((b) => b.id === e.id);
      const entry = book[index];
      if (entry === undefined) continue;
      if (e.what === "giveBack") book.splice(index, 1);
      else entry.end ??= e.at;
    }
    const d = planSharedSlots(now, book.slice(-bookedWritesNeeded(p)), p, step.max);
    if ("retryAt" in d) continue;
    d.at.forEach((at, i) => {
      const id = next++;
      book.push({ id, start: at });
      const fate = step.fates[i % step.fates.length];
      if (fate === undefined) return;
      if (fate.giveBack) {
        events.push({ at: at + fate.late, id, what: "giveBack" });
        return;
      }
      const arrival = at + fate.late + fate.flight;
      arrivals.push(arrival);
      if (broken) events.push({ at, id, what: "answer" });
      else if (fate.record !== undefined)
        events.push({ at: arrival + fate.record, id, what: "answer" });
    });
  }
  return arrivals;
}

describe("blocks, late answers and given-back slots keep every window under its count", () => {
  const p: BudgetPlan = {
    intervalMs: 50,
    windows: [{ count: 4, ms: 1_000 }],
    answerBoundMs: 1_500 + LATE_SEND_MS,
    pollMs: 100,
  };
  const fate = fc.record({
    giveBack: fc.boolean(),
    late: fc.integer({ min: 0, max: LATE_SEND_MS }),
    // Within the request timeout (answerBoundMs − LATE_SEND_MS).
    flight: fc.integer({ min: 0, max: 1_500 }),
    record: fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined, freq: 8 }),
  });
  const steps = fc.array(
    fc.record({
      gap: fc.integer({ min: 0, max: 600 }),
      max: fc.integer({ min: 1, max: 4 }),
      fates: fc.array(fate, { minLength: 1, maxLength: 4 }),
    }),
    { minLength: 1, maxLength: 80 },
  );

  it("never lets more than N writes arrive in any window, whatever the workers do", () => {
    let fullest = 0;
    fc.assert(
      fc.property(steps, (s) => {
        const most = busiest(simulate(s, p, false), 1_000);
        fullest = Math.max(fullest, most);
        expect(most).toBeLessThanOrEqual(4);
      }),
      { numRuns: 300 },
    );
    // …and the workloads do fill windows: the bound is reached, not merely never approached.
    expect(fullest).toBe(4);
  });

  it("is a check that fails for blocks that ignore the in-flight bound", () => {
    expect(() => {
      fc.assert(
        fc.property(steps, (s) => {
          expect(busiest(simulate(s, p, true), 1_000)).toBeLessThanOrEqual(4);
        }),
        { numRuns: 300, seed: 19 },
      );
    }).toThrow();
  });
});
