import {
  bookedWritesNeeded,
  LATE_SEND_MS,
  planSharedSlot,
  type BookedWrite,
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
  /** Clock time after which the slot is too late to use (book again). */
  readonly latest: number;
}

/**
 * Books the next write of the token in the shared budget and waits (as the run, with its events
 * and wait budget) until the booked start. A wait that fails gives the slot back.
 */
export async function bookSharedWrite(o: {
  readonly shared: SharedGateBudget;
  readonly plan: BudgetPlan;
  readonly run: RunWaits;
  readonly clock: Clock;
  readonly name: string;
  readonly reason: (waitMs: number) => WaitReason;
}): Promise<SharedSlot> {
  const { shared, plan, run, clock, name } = o;
  for (;;) {
    if (run.signal.aborted) throw run.interrupted(name, run.signal.reason);
    const r = await shared.budget.reserve(shared.key, "write", plan);
    if (!r.granted) {
      const ms = r.retryAt - r.now;
      await run.wait(o.reason(ms), clock.now() + ms, name);
      continue;
    }
    const delay = Math.max(0, r.at - r.now);
    const slot = { id: r.id, latest: clock.now() + delay + LATE_SEND_MS };
    try {
      await run.wait(o.reason(delay), clock.now() + delay, name);
    } catch (error) {
      releaseShared(shared, slot, "cancel");
      throw error;
    }
    return slot;
  }
}

/** Records a slot's answer (`answered`) or gives it back unsent (`cancel`); never throws. */
export function releaseShared(
  shared: SharedGateBudget,
  slot: SharedSlot,
  how: "answered" | "cancel",
): void {
  // A record that cannot be written leaves the slot counted until its answer bound: safe.
  void shared.budget[how](slot.id).catch(() => undefined);
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
  return {
    reserve(key, kind, plan) {
      const list = books.get(`${kind} ${key}`) ?? [];
      books.set(`${kind} ${key}`, list);
      const t = now();
      const decision = planSharedSlot(t, list.slice(-bookedWritesNeeded(plan)), plan);
      if ("retryAt" in decision)
        return Promise.resolve({ granted: false, retryAt: decision.retryAt, now: t });
      const entry = { id: String(next++), key, start: decision.at };
      list.push(entry);
      byId.set(entry.id, entry);
      return Promise.resolve({ granted: true, id: entry.id, at: decision.at, now: t });
    },
    answered(id) {
      const entry = byId.get(id);
      if (entry !== undefined && entry.end === undefined) entry.end = now();
      return Promise.resolve();
    },
    cancel(id) {
      const entry = byId.get(id);
      if (entry === undefined || entry.end !== undefined) return Promise.resolve();
      byId.delete(id);
      for (const list of books.values()) {
        const index = list.findIndex((b) => b.id === id);
        if (index >= 0) list.splice(index, 1);
      }
      return Promise.resolve();
    },
    booked: (key) => books.get(`write ${key}`) ?? [],
  };
}
