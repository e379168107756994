import type { SyncEvent } from "../sync/events.js";

/**
 * Slack around a run's window when a delivery's time is compared with it: services stamp
 * changes to the second (GitHub's `updated_at`), and their clock may run a little apart.
 */
export const ECHO_SLACK_MS = 1_000;

/** How many runs' writes are remembered per job (older echoes arrive long before). */
const WINDOWS_KEPT = 20;

interface Window {
  readonly from: number;
  readonly to: number;
  readonly items: ReadonlySet<string>;
}

/**
 * What this service's runs wrote on each job's target, and the time each delivery says its item
 * last changed: a webhook delivery is the echo of the service's own write when every time it
 * carries for an item falls within a run that wrote that item. A person's later edit — made with
 * the same account or not — carries a later time and starts a run. A person's edit of an item
 * made while the run writes it is taken for the echo: the next run (schedule or webhook) reads it
 * from the target's feed, whose position the writing run took before it wrote.
 */
export interface OwnWrites {
  /** A finished run of `job`, from `startedAt` to `finishedAt` (epoch ms), and its events. */
  noteRun(job: string, startedAt: number, finishedAt: number, events: readonly SyncEvent[]): void;
  /**
   * A verified delivery for `job`: each named item with the change time it carries (`""`: none,
   * never an echo).
   */
  noteDelivery(job: string, stamps: ReadonlyMap<string, string>): void;
  /**
   * Splits the items a webhook run would read into echoes and the rest, and forgets the
   * deliveries' times of all of them (the run about to start covers them).
   */
  split(job: string, items: ReadonlySet<string>): { echoes: string[]; rest: Set<string> };
  /** A whole-job run starts: it covers every delivery noted so far. */
  forget(job: string): void;
}

/** Target items a run wrote: created there, updated there, or rewritten (markers). */
export function writtenItems(events: readonly SyncEvent[]): Set<string> {
  const out = new Set<string>();
  for (const e of events) {
    if (e.type === "created" && e.side === "target") out.add(e.id);
    else if (e.type === "updated" && e.changes.some((c) => c.toSide === "target"))
      out.add(e.targetId);
    else if (e.type === "marker_rewritten") out.add(e.id);
  }
  return out;
}

export function createOwnWrites(): OwnWrites {
  const windows = new Map<string, Window[]>();
  const stamps = new Map<string, Map<string, string[]>>();
  const within = (job: string, item: string, at: number): boolean =>
    (windows.get(job) ?? []).some(
      (w) => w.items.has(item) && at >= w.from - ECHO_SLACK_MS && at <= w.to + ECHO_SLACK_MS,
    );
  return {
    noteRun(job, startedAt, finishedAt, events) {
      const items = writtenItems(events);
      if (items.size === 0) return;
      const list = windows.get(job) ?? [];
      list.push({ from: startedAt, to: finishedAt, items });
      if (list.length > WINDOWS_KEPT) list.shift();
      windows.set(job, list);
    },
    noteDelivery(job, given) {
      const byItem = stamps.get(job) ?? new Map<string, string[]>();
      for (const [item, at] of given) byItem.set(item, [...(byItem.get(item) ?? []), at]);
      stamps.set(job, byItem);
    },
    forget(job) {
      stamps.delete(job);
    },
    split(job, items) {
      const byItem = stamps.get(job);
      const echoes: string[] = [];
      const rest = new Set<string>();
      for (const item of items) {
        const times = (byItem?.get(item) ?? []).map((t) => Date.parse(t));
        byItem?.delete(item);
        const echo =
          times.length > 0 && times.every((t) => Number.isFinite(t) && within(job, item, t));
        if (echo) echoes.push(item);
        else rest.add(item);
      }
      return { echoes, rest };
    },
  };
}
