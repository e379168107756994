import type { RequestKind } from "./request-gate.js";

/**
 * The rate-limit budget of one token shared by every process using it (several `serve` or `sync`
 * workers on one PostgreSQL state). `core` declares it, `state/postgres` keeps it in the database,
 * and the request gate (`gate/`) books each write in it on top of its in-process windows.
 *
 * The rule is the gate's completion-anchored one, kept across processes: the writes of a token
 * form one sequence of booked starts (never decreasing), and write k may start only a full
 * window after write k − N was answered (N = the window's count). Any two writes N apart then
 * reach the service at least one window apart, whichever process sent them, so no window ever
 * receives more than N writes:
 *   arrival(k) ≥ start(k) ≥ start(j + N) ≥ answer(j) + W ≥ arrival(j) + W   for every j ≤ k − N.
 * Booked times are the store's clock; a process waits the booked delay on its own before it
 * sends (so its real start is never earlier than the booked one) and records the answer after it
 * arrived (never earlier than the real one). A write whose answer was never recorded (its
 * process died, or lost the database) counts as answered `answerBoundMs` after its booked start:
 * the gate never sends a write later than `LATE_SEND_MS` after its booked start nor lets it run
 * longer than its request timeout, so the service received it by then.
 *
 * Blocks, batched answers and returned slots keep the rule:
 * - A block of K slots (`planSharedSlots`) is exactly what K single bookings made one after the
 *   other at the same store time, under the same lock, would book: each slot is planned over the
 *   book including the slots before it in the block. Those are in flight, so a slot whose
 *   deciding write is one of them (or any write in flight within its bound) ends the block. A
 *   block therefore never holds more than N slots of a window, and the inequality above holds for
 *   every slot of it as for a single booking. Each slot is used (sent) no earlier than its own
 *   start and no later than `LATE_SEND_MS` after it, or it is given back.
 * - An answer recorded late (batched with the next booking, or on a short timer) is only later
 *   than the real one: answer(j) above grows, so the bound it gives the writes N after is
 *   stricter, never looser. An answer never recorded counts, as before, at
 *   start + answerBoundMs, which is no earlier than the real one.
 * - Giving back a slot never sent deletes it from the book. For the writes present (oldest
 *   first, starts never decreasing) the invariant is start(p[i + N]) ≥ answer(p[i]) + W for
 *   every sent p[i]. Deleting p[m] turns the pairs around it into (p[i], p[i + N + 1]), and
 *   start(p[i + N + 1]) ≥ start(p[i + N]) ≥ answer(p[i]) + W: it only removes a constraint.
 *   Every sent write stays in the book (or was pruned as older than the last N), so any two
 *   sent writes N apart among the sent ones are at least N apart in the book, and the proof
 *   above applies to them.
 * - Fairness: a worker books at most `blockSize` slots at once — never more than it has writes
 *   waiting, and at most half a window — so another worker asking in the same window finds
 *   slots left in it.
 */

/** One window of a shared budget: at most `count` writes reach the service in any `ms`. */
export interface BudgetWindow {
  readonly count: number;
  readonly ms: number;
}

/** How a token's shared budget books writes (derived from the gate's limits). */
export interface BudgetPlan {
  /** Least time between two booked starts (smooth pacing, as the gate's own spacing). */
  readonly intervalMs: number;
  readonly windows: readonly BudgetWindow[];
  /** A booked write not known to be answered counts as answered this long after its start. */
  readonly answerBoundMs: number;
  /** How long to wait before asking again while the write that decides is still in flight. */
  readonly pollMs: number;
}

/** The outcome of asking for a slot. Times are the store's clock, epoch ms. */
export type BudgetReservation =
  | {
      readonly granted: true;
      /** Hand back to `answered` or `cancel`. */
      readonly id: string;
      /** The booked start: wait `at − now` before sending. */
      readonly at: number;
      readonly now: number;
    }
  | {
      readonly granted: false;
      /** The write that decides is in flight: ask again at `retryAt`. */
      readonly retryAt: number;
      readonly now: number;
    };

/** One slot of a block. `at` is the booked start (store clock, epoch ms). */
export interface BookedSlot {
  /** Hand back to `answered` or `cancel` / `giveBack`. */
  readonly id: string;
  readonly at: number;
}

/** The outcome of asking for a block of slots: at least one, or when to ask again. */
export type BudgetBlock =
  | {
      readonly granted: true;
      /** Oldest first, starts never decreasing. */
      readonly slots: readonly BookedSlot[];
      readonly now: number;
    }
  | {
      readonly granted: false;
      readonly retryAt: number;
      readonly now: number;
    };

/** A budget shared across processes, keyed by the gate registry's token hash (never the token). */
export interface SharedBudget {
  /** Books the next `kind` request of `tokenKey` under `plan`, or says when to ask again. */
  reserve(tokenKey: string, kind: RequestKind, plan: BudgetPlan): Promise<BudgetReservation>;
  /**
   * Books up to `max` consecutive slots in one round trip (`planSharedSlots`), or says when to
   * ask again. `max` is the caller's `blockSize`.
   */
  reserveBlock(
    tokenKey: string,
    kind: RequestKind,
    plan: BudgetPlan,
    max: number,
  ): Promise<BudgetBlock>;
  /** Gives back booked slots never sent, all in one round trip. */
  giveBack(ids: readonly string[]): Promise<void>;
  /** Records that the booked request's answer (or error) arrived. */
  answered(id: string): Promise<void>;
  /** Gives back a booked slot whose request was never sent. */
  cancel(id: string): Promise<void>;
}

/** One booked write of a token, as the policy reads it (store clock, epoch ms). */
export interface BookedWrite {
  readonly start: number;
  /** When its answer was recorded; absent while in flight (or never recorded). */
  readonly end?: number | null | undefined;
}

/** The longest a gate may send a write after its booked start; later, it books again. */
export const LATE_SEND_MS = 15_000;

/** How many of the latest booked writes `planSharedSlot` needs to see. */
export function bookedWritesNeeded(plan: BudgetPlan): number {
  return Math.max(1, ...plan.windows.map((w) => w.count));
}

/**
 * The next slot of a shared budget, given the latest booked writes (oldest first, at least the
 * last `bookedWritesNeeded(plan)` of them). Pure: the store runs it under its lock per token.
 */
export function planSharedSlot(
  now: number,
  booked: readonly BookedWrite[],
  plan: BudgetPlan,
): { readonly at: number } | { readonly retryAt: number } {
  const last = booked.at(-1);
  let at = last === undefined ? now : Math.max(now, last.start + plan.intervalMs);
  let retryAt: number | undefined;
  for (const w of plan.windows) {
    if (booked.length < w.count) continue;
    const anchor = booked[booked.length - w.count];
    if (anchor === undefined) continue;
    const bound = anchor.start + plan.answerBoundMs;
    const end = anchor.end ?? (bound <= now ? bound : undefined);
    if (end === undefined) {
      // Still in flight: not before its own window has passed, and not before a poll.
      retryAt = Math.max(retryAt ?? 0, now + plan.pollMs, anchor.start + w.ms);
      continue;
    }
    at = Math.max(at, end + w.ms);
  }
  // Every rule is a lower bound that only grows as writes are booked: never ask before `at`.
  return retryAt === undefined ? { at } : { retryAt: Math.max(retryAt, at) };
}

/** The most slots one booking takes at once, whatever is waiting. */
export const MAX_BLOCK = 8;

/**
 * How many slots a worker with `waiting` writes of the token books at once: never more than it
 * has waiting (no slot booked for nothing), at most `MAX_BLOCK`, and at most half of the smallest
 * window's count (at least 1), so that another worker booking in the same window finds slots.
 */
export function blockSize(plan: BudgetPlan, waiting: number): number {
  const smallest = Math.min(...plan.windows.map((w) => w.count));
  const half = Number.isFinite(smallest) ? Math.max(1, Math.floor(smallest / 2)) : MAX_BLOCK;
  return Math.max(1, Math.min(Math.floor(waiting), MAX_BLOCK, half));
}

/**
 * Up to `max` consecutive slots of a shared budget at store time `now`, given the latest booked
 * writes (oldest first, at least the last `bookedWritesNeeded(plan)`): the slots `max` single
 * bookings at `now` would get one after the other, each counting the ones before it as booked
 * and in flight. Stops at the first slot that would have to ask again; `retryAt` only when not
 * one slot is free. Pure: the store runs it under its lock per token.
 */
export function planSharedSlots(
  now: number,
  booked: readonly BookedWrite[],
  plan: BudgetPlan,
  max: number,
): { readonly at: readonly number[] } | { readonly retryAt: number } {
  const need = bookedWritesNeeded(plan);
  const book = booked.slice(-need);
  const at: number[] = [];
  while (at.length < Math.max(1, Math.floor(max))) {
    const decision = planSharedSlot(now, book, plan);
    if ("retryAt" in decision) {
      return at.length === 0 ? { retryAt: decision.retryAt } : { at };
    }
    at.push(decision.at);
    book.push({ start: decision.at });
    if (book.length > need) book.shift();
  }
  return { at };
}
