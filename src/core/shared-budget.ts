import type { RequestKind } from "./request-gate.js";

/**
 * The rate-limit budget of one token shared by every process using it (several `serve` or `sync`
 * workers on one PostgreSQL state). `core` declares it, `state/postgres` keeps it in the database,
 * and the request gate (`queue/`) books each write in it on top of its in-process windows.
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

/** A budget shared across processes, keyed by the gate registry's token hash (never the token). */
export interface SharedBudget {
  /** Books the next `kind` request of `tokenKey` under `plan`, or says when to ask again. */
  reserve(tokenKey: string, kind: RequestKind, plan: BudgetPlan): Promise<BudgetReservation>;
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
