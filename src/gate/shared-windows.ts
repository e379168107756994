import {
  blockSize,
  bookedWritesNeeded,
  LATE_SEND_MS,
  planSharedSlots,
  type BookedWrite,
  type BudgetBlock,
  type BudgetPlan,
  type SharedBudget,
} from "../core/shared-budget.js";
import type { WaitReason } from "../core/request-gate.js";
import type { GateLimits } from "./gate-limits.js";
import { DEFAULT_TIMEOUT_MS } from "./gate-limits.js";
import type { RunWaits } from "./gate-waits.js";
import type { Clock } from "./virtual-clock.js";

/** A token's budget shared with other processes, and the token's key in it. */
export interface SharedGateBudget {
  readonly budget: SharedBudget;
  /** The gate registry's key (system, base URL, token hash): never the token. */
  readonly key: string;
}

/** The least spacing of booked starts, as a share of the average gap at the full rate. */
const SPACING = 0.5;
/** Clock granularity guard added to each window (as the in-process pacer's). */
const GUARD_MS = 2;
/** How often to ask again while the write that decides is in flight. */
const POLL_MS = 100;

/**
 * The shared plan of a gate's write limits (`writesPerMinute`, `writesPerHour`), or undefined
 * when it has none: reads and uncapped writes are not shared.
 */
export function sharedPlan(limits: GateLimits): BudgetPlan | undefined {
  const scale = limits.timeScale ?? 1;
  const windows = [
    { count: limits.writesPerMinute, ms: 60_000 / scale + GUARD_MS },
    { count: limits.writesPerHour, ms: 3_600_000 / scale + GUARD_MS },
  ].flatMap((w) =>
    w.count === undefined || !Number.isFinite(w.count)
      ? []
      : [{ count: Math.floor(w.count), ms: w.ms }],
  );
  const first = windows[0];
  if (first === undefined) return undefined;
  const perMinute = limits.writesPerMinute ?? limits.writesPerHour ?? 1;
  const unit = limits.writesPerMinute === undefined ? 3_600_000 : 60_000;
  return {
    intervalMs: (unit / perMinute / scale) * SPACING,
    windows,
    answerBoundMs: (limits.timeoutMs ?? DEFAULT_TIMEOUT_MS) + LATE_SEND_MS,
    pollMs: POLL_MS,
  };
}

/** A write's slot in the shared budget, held until its answer. */
export interface SharedSlot {
  readonly id: string;
  /** Clock time of the booked start: the write is not sent before it. */
  readonly at: number;
  /** Clock time after which the slot is too late to use (book again). */
  readonly latest: number;
}

/** A write counted as waiting for a slot until it takes one or gives up. */
export interface WaitingWrite {
  /** Idempotent. */
  leave(): void;
}

/** A gate's bookings of one token's writes in the shared budget: blocks, spares, answers. */
export interface SharedBooker {
  /**
   * A slot for the next write, waited for as the run (its events and wait budget) until its
   * booked start: a spare of the last block, or a new block of up to `blockSize` slots booked
   * for the writes waiting. A wait that fails gives the slot back.
   */
  take(o: {
    readonly run: RunWaits;
    readonly name: string;
    readonly reason: (waitMs: number) => WaitReason;
    /** The write's `announce`: it stops waiting once it holds a slot. */
    readonly ticket?: WaitingWrite | undefined;
  }): Promise<SharedSlot>;
  /**
   * A write of the token is waiting (from the moment it reaches the gate, before the gate's own
   * windows): blocks are sized on the writes waiting. `leave` once it no longer waits.
   */
  announce(): WaitingWrite;
  /** The slot's write was answered (or failed after it was sent); never throws. */
  answered(slot: SharedSlot): void;
  /** Gives back a slot whose write was never sent; never throws. */
  giveBack(slot: SharedSlot): void;
  /** Slots booked and not yet taken by a write (for tests). */
  spares(): number;
}

/**
 * Books a token's writes in blocks: when a write needs a slot and no spare is left, one round
 * trip books as many consecutive slots as writes are waiting (`blockSize`); the writes take them
 * in order. Spares go back to the budget in one round trip as soon as no write waits (the queue
 * emptied, the run stopped), and a spare past its `LATE_SEND_MS` is never used: given back.
 */
export function createSharedBooker(o: {
  readonly shared: SharedGateBudget;
  readonly plan: BudgetPlan;
  readonly clock: Clock;
}): SharedBooker {
  const { shared, plan, clock } = o;
  /** Writes asking for a slot and not holding one yet. */
  let waiting = 0;
  /** Booked slots no write holds yet, booked start first. */
  let spares: SharedSlot[] = [];
  /** The booking round trip under way, shared by every write waiting. */
  let booking: Promise<BudgetBlock> | undefined;

  const giveBackAll = (slots: readonly SharedSlot[]): void => {
    if (slots.length === 0) return;
    // A give-back that cannot be written leaves the slots counted until their bound: safe.
    void shared.budget.giveBack(slots.map((s) => s.id)).catch(() => undefined);
  };
  /** Gives back the spares too late to use, and all of them once no write waits. */
  const tidy = (): void => {
    const now = clock.now();
    const late = spares.filter((s) => now > s.latest);
    spares = spares.filter((s) => now <= s.latest);
    if (waiting === 0) {
      late.push(...spares);
      spares = [];
    }
    giveBackAll(late);
  };
  const book = (): Promise<BudgetBlock> => {
    booking ??= shared.budget
      .reserveBlock(shared.key, "write", plan, blockSize(plan, waiting))
      .then((block) => {
        if (block.granted) {
          const base = clock.now() - block.now;
          for (const s of block.slots) {
            const at = base + s.at;
            spares.push({ id: s.id, at, latest: at + LATE_SEND_MS });
          }
          spares.sort((a, b) => a.at - b.at);
        }
        return block;
      })
      .finally(() => {
        booking = undefined;
      });
    return booking;
  };

  const announce = (): WaitingWrite => {
    waiting++;
    let left = false;
    return {
      leave() {
        if (left) return;
        left = true;
        waiting--;
        tidy();
      },
    };
  };

  return {
    announce,
    async take({ run, name, reason, ticket }) {
      const waits = ticket ?? announce();
      let slot: SharedSlot | undefined;
      try {
        for (;;) {
          if (run.signal.aborted) throw run.interrupted(name, run.signal.reason);
          tidy();
          slot = spares.shift();
          if (slot !== undefined) break;
          const block = await book();
          if (!block.granted) {
            const ms = block.retryAt - block.now;
            await run.wait(reason(ms), clock.now() + ms, name);
          }
        }
      } finally {
        waits.leave();
      }
      const taken = slot;
      try {
        await run.wait(reason(taken.at - clock.now()), taken.at, name);
      } catch (error) {
        giveBackAll([taken]);
        throw error;
      }
      return taken;
    },
    answered(slot) {
      // Recorded late or never, the answer counts no earlier than it arrived: safe.
      void shared.budget.answered(slot.id).catch(() => undefined);
    },
    giveBack(slot) {
      giveBackAll([slot]);
    },
    spares: () => spares.length,
  };
}

/**
 * A budget kept in this process's memory: the reference implementation of the shared rule (the
 * PostgreSQL one runs the same policy under a row lock), for tests and simulations with a
 * virtual clock, where several gates stand for several processes.
 */
export function createMemoryBudget(now: () => number): SharedBudget & {
  /** The booked writes of a key, oldest first (for assertions). */
  booked(key: string): readonly BookedWrite[];
} {
  const books = new Map<string, { id: string; start: number; end?: number }[]>();
  const byId = new Map<string, { key: string; start: number; end?: number }>();
  let next = 1;
  const reserveBlock: SharedBudget["reserveBlock"] = (key, kind, plan, max) => {
    const list = books.get(`${kind} ${key}`) ?? [];
    books.set(`${kind} ${key}`, list);
    const t = now();
    const decision = planSharedSlots(t, list.slice(-bookedWritesNeeded(plan)), plan, max);
    if ("retryAt" in decision)
      return Promise.resolve({ granted: false, retryAt: decision.retryAt, now: t });
    const slots = decision.at.map((at) => {
      const entry = { id: String(next++), key, start: at };
      list.push(entry);
      byId.set(entry.id, entry);
      return { id: entry.id, at };
    });
    return Promise.resolve({ granted: true, slots, now: t });
  };
  const cancel = (id: string): void => {
    const entry = byId.get(id);
    if (entry === undefined || entry.end !== undefined) return;
    byId.delete(id);
    for (const list of books.values()) {
      const index = list.findIndex((b) => b.id === id);
      if (index >= 0) list.splice(index, 1);
    }
  };
  return {
    reserveBlock,
    async reserve(key, kind, plan) {
      const block = await reserveBlock(key, kind, plan, 1);
      if (!block.granted) return block;
      const slot = block.slots[0];
      if (slot === undefined) throw new Error("A granted block has at least one slot.");
      return { granted: true, id: slot.id, at: slot.at, now: block.now };
    },
    answered(id) {
      const entry = byId.get(id);
      if (entry !== undefined && entry.end === undefined) entry.end = now();
      return Promise.resolve();
    },
    cancel(id) {
      cancel(id);
      return Promise.resolve();
    },
    giveBack(ids) {
      for (const id of ids) cancel(id);
      return Promise.resolve();
    },
    booked: (key) => books.get(`write ${key}`) ?? [],
  };
}
