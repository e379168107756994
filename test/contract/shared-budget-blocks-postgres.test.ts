import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  blockSize,
  LATE_SEND_MS,
  type BudgetPlan,
  type SharedBudget,
} from "../../src/core/shared-budget.js";
import { openState } from "../../src/state/open-state.js";
import type { StateStore } from "../../src/state/store.js";
import type { PostgresServer } from "../support/postgres-server.js";
import { postgresSkipReason, startPostgres } from "../support/postgres-server.js";

// Several stores (as several worker processes) on one database book one token's writes in
// blocks. Each "write" waits for its booked start, travels for a while (slow ones first, then
// fast ones: the order that breaks a window anchored on anything but the answers), arrives —
// its arrival is recorded on the host's clock, the clock the server books with — and is
// answered. No window of W may hold more than N arrivals.
let server: PostgresServer | undefined;
let n = 0;
beforeAll(async () => {
  if (postgresSkipReason === undefined) server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

const KEY = "github http://127.0.0.1 0123456789abcdef";
const N = 4;
const W = 1_000;
const plan: BudgetPlan = {
  intervalMs: 50,
  // A 2 ms guard, as the gate's plan: arrivals are recorded in whole ms.
  windows: [{ count: N, ms: W + 2 }],
  answerBoundMs: 1_500,
  pollMs: 50,
};

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

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

/**
 * `count` stores on one fresh database. With `clock`, the budget books and compares on it (the
 * test drives it: no result depends on the machine's speed); without, on the server's.
 */
async function stores(count: number, clock?: () => number): Promise<StateStore[]> {
  if (server === undefined) throw new Error("no PostgreSQL server");
  const url = await server.createDatabase(`blocks_${(n += 1)}`);
  const opened: StateStore[] = [];
  for (let i = 0; i < count; i++)
    opened.push(
      await openState(
        { backend: "postgres", url },
        clock === undefined ? {} : { budgetClock: clock },
      ),
    );
  return opened;
}

/** A clock the test moves by hand. */
function handClock(): { now: () => number; advance: (ms: number) => void } {
  let t = Date.UTC(2026, 0, 5, 9, 0, 0);
  return { now: () => t, advance: (ms) => (t += ms) };
}

function budgetOf(store: StateStore): SharedBudget {
  if (store.budget === undefined) throw new Error("a writable PostgreSQL state has a budget");
  return store.budget;
}

/** Slow writes first, then fast ones, by the order of their slots. */
const flight = (i: number): number => (i % (2 * N) < N ? 700 : 0);

/**
 * A worker sending `writes` writes through `budget`: it books blocks (as many as `blockSize`
 * allows for what it still has to send), sends each slot's write at its start without waiting
 * for the block before, and records each answer once it arrived.
 */
async function worker(budget: SharedBudget, writes: number, arrivals: number[]): Promise<void> {
  const sent: Promise<void>[] = [];
  let left = writes;
  let index = 0;
  while (left > 0) {
    const block = await budget.reserveBlock(KEY, "write", plan, blockSize(plan, left));
    const received = Date.now();
    if (!block.granted) {
      await sleep(block.retryAt - block.now);
      continue;
    }
    for (const slot of block.slots) {
      left--;
      const i = index++;
      sent.push(
        (async () => {
          await sleep(received + (slot.at - block.now) - Date.now());
          await sleep(flight(i));
          arrivals.push(Date.now());
          await sleep(20);
          await budget.answered(slot.id);
        })(),
      );
    }
  }
  await Promise.all(sent);
}

/** A budget that ignores the in-flight bound: every slot counts as answered when booked. */
function answeringAtOnce(budget: SharedBudget): SharedBudget {
  return {
    ...budget,
    reserveBlock: async (...args) => {
      const block = await budget.reserveBlock(...args);
      if (block.granted) await Promise.all(block.slots.map((s) => budget.answered(s.id)));
      return block;
    },
  };
}

describe.skipIf(postgresSkipReason !== undefined)(
  `one token's writes booked in blocks through PostgreSQL${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    it.each([
      [2, 10],
      [3, 7],
    ])(
      "keeps %i stores booking blocks under N writes in any window",
      async (count, each) => {
        const opened = await stores(count);
        try {
          const arrivals: number[] = [];
          await Promise.all(opened.map((s) => worker(budgetOf(s), each, arrivals)));
          expect(arrivals).toHaveLength(count * each);
          expect(busiest(arrivals, W)).toBeLessThanOrEqual(N);
        } finally {
          await Promise.all(opened.map((s) => s.close()));
        }
      },
      60_000,
    );

    it("is a check that fails when blocks ignore the in-flight bound", async () => {
      const [store] = await stores(1);
      if (store === undefined) throw new Error("no store");
      try {
        const arrivals: number[] = [];
        await worker(answeringAtOnce(budgetOf(store)), 3 * N, arrivals);
        expect(busiest(arrivals, W)).toBeGreaterThan(N);
      } finally {
        await store.close();
      }
    }, 60_000);

    it("books a block in three round trips, records its answers in one, gives back in one", async () => {
      const [store] = await stores(1);
      if (store === undefined) throw new Error("no store");
      // The budget's statements, among all the process's pool sends (the worker's heartbeat…).
      const spy = vi.spyOn(pg.Client.prototype, "query");
      const sent = (): number =>
        spy.mock.calls.filter(([q]) => {
          const text = typeof q === "string" ? q : (q as { text?: unknown }).text;
          return typeof text === "string" && /rate_slots|pg_advisory_xact_lock/.test(text);
        }).length;
      try {
        const budget = budgetOf(store);
        spy.mockClear();
        const block = await budget.reserveBlock(KEY, "write", plan, N);
        expect(sent()).toBe(3);
        // (begin + lock, read, insert + commit: no BEGIN or COMMIT of its own.)
        expect(block).toMatchObject({ granted: true });
        const slots = block.granted ? block.slots : [];
        expect(slots).toHaveLength(N);
        spy.mockClear();
        await Promise.all(slots.slice(0, 2).map((s) => budget.answered(s.id)));
        expect(sent()).toBe(1);
        spy.mockClear();
        await budget.giveBack(slots.slice(2).map((s) => s.id));
        expect(sent()).toBe(1);
      } finally {
        spy.mockRestore();
        await store.close();
      }
    }, 60_000);

    it("leaves half a window to another worker: both get slots in the first window", async () => {
      const [a, b] = await stores(2, handClock().now);
      if (a === undefined || b === undefined) throw new Error("no stores");
      try {
        const first = await budgetOf(a).reserveBlock(KEY, "write", plan, blockSize(plan, 50));
        const second = await budgetOf(b).reserveBlock(KEY, "write", plan, blockSize(plan, 50));
        if (!first.granted || !second.granted) throw new Error("both are granted");
        expect(first.slots).toHaveLength(N / 2);
        expect(second.slots).toHaveLength(N / 2);
        const start = first.slots[0]?.at ?? 0;
        expect(Math.max(...second.slots.map((s) => s.at))).toBeLessThan(start + W);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    }, 60_000);

    it("lets another store reuse the slots a store gave back", async () => {
      const [a, b] = await stores(2, handClock().now);
      if (a === undefined || b === undefined) throw new Error("no stores");
      try {
        const held = await budgetOf(a).reserveBlock(KEY, "write", plan, N);
        if (!held.granted) throw new Error("an empty book grants a block");
        expect(held.slots).toHaveLength(N);
        // The whole window is booked and in flight: the other store has to ask again.
        expect(await budgetOf(b).reserveBlock(KEY, "write", plan, 1)).toMatchObject({
          granted: false,
        });
        await budgetOf(a).giveBack(held.slots.map((s) => s.id));
        const reused = await budgetOf(b).reserveBlock(KEY, "write", plan, N);
        if (!reused.granted) throw new Error("the slots given back are free again");
        expect(reused.slots).toHaveLength(N);
        // At once: not after the window of the slots given back.
        expect((reused.slots[0]?.at ?? Infinity) - reused.now).toBeLessThanOrEqual(0);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    }, 60_000);

    it("does not hold the token past the answer bound when a store dies holding a block", async () => {
      const clock = handClock();
      const [a, b] = await stores(2, clock.now);
      if (a === undefined || b === undefined) throw new Error("no stores");
      try {
        const held = await budgetOf(a).reserveBlock(KEY, "write", plan, N);
        if (!held.granted) throw new Error("an empty book grants a block");
        // Gone without a word: no answer, no give-back.
        await a.close();
        const first = held.slots[0]?.at ?? 0;
        const started = clock.now();
        let at: number | undefined;
        const waits: number[] = [];
        for (let asked = 0; at === undefined; asked++) {
          if (asked > 100) throw new Error("the dead store's block is never freed");
          const r = await budgetOf(b).reserveBlock(KEY, "write", plan, 1);
          if (r.granted) at = r.slots[0]?.at ?? 0;
          else {
            waits.push(r.retryAt - r.now);
            clock.advance(r.retryAt - r.now);
          }
        }
        // Every refusal named a later time to come back.
        expect(waits.every((w) => w > 0)).toBe(true);
        // Counted as answered at its bound, never earlier, and free a window after it.
        expect(at).toBeGreaterThanOrEqual(first + plan.answerBoundMs + W);
        // The wait was the bound and a window (not the writes' LATE_SEND_MS or more).
        expect(clock.now() - started).toBeLessThan(LATE_SEND_MS);
        expect(clock.now() - started).toBeLessThanOrEqual(
          plan.answerBoundMs + W + 2 * plan.pollMs + 2,
        );
      } finally {
        await b.close();
      }
    }, 60_000);
  },
);
