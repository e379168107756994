import type { ItemKind, WorkItem } from "../../core/model.js";
import type { Checkpoint, Tracker, UnreadableItem } from "../../core/tracker.js";
import type { Lanes } from "../../gate/lanes.js";
import type { SystemName } from "../../core/model.js";
import type { SyncEvent } from "../events.js";
import { readCount } from "./read-count.js";
import { lightener } from "./light-items.js";

/** What was read of one side. */
export interface SideRead {
  readonly items: WorkItem[];
  /** Every item was read (deletions may be inferred). */
  readonly complete: boolean;
  /** The feed position after this read (targets), to store once the run applied it. */
  readonly checkpoint?: Checkpoint | undefined;
  /**
   * `kind:id` of the items read one by one (current), not from a listing or a feed (which may
   * lag writes; see verify-target.ts).
   */
  readonly fresh?: ReadonlySet<string> | undefined;
  /**
   * `kind:id` of items a partial read found deleted (read by id and not found): their links'
   * deletions are planned as after a complete read.
   */
  readonly gone?: ReadonlySet<string> | undefined;
  /**
   * `kind:id` of linked tinyPM items this read found as their link's base holds them and did not
   * keep (run-read.ts `keepOf`): read, present and in step. The plan skips them as unchanged; one
   * whose counterpart the run reads too is read again by id (read-tinypm.ts `readCounterparts`).
   * In the read's order.
   */
  readonly inStep?: ReadonlySet<string> | undefined;
  /**
   * Items whose own document could not be read: each is parked with its error, and neither it
   * nor (for a tinyPM story) its tasks are taken for deleted; their links stay as they are. On a
   * target, also the linked items it no longer shows but may still have (GitHub's 404).
   */
  readonly unreadable?: readonly UnreadableItem[] | undefined;
}

async function collect<T>(iterable: AsyncIterable<T>, seen?: (x: T) => void): Promise<T[]> {
  const out: T[] = [];
  for await (const x of iterable) {
    out.push(x);
    seen?.(x);
  }
  return out;
}

async function* mapped<T>(iterable: AsyncIterable<T>, f: (x: T) => T): AsyncIterable<T> {
  for await (const x of iterable) yield f(x);
}

/** Reads every item of a side (a full scan), as one lane call (the gate retries its requests). */
export async function readAll(
  lanes: Lanes,
  system: SystemName,
  tracker: Tracker,
  /** Told how many items the read has found so far (progress). */
  emit?: (e: SyncEvent) => void,
  /** Keep each item's heavy parts packed (light-items.ts): a migration's read. */
  lighten = false,
): Promise<SideRead> {
  const unreadable: UnreadableItem[] = [];
  const count = readCount(emit, system);
  const items = await lanes.run(system, {
    name: `list ${system} items`,
    kind: "read",
    run: () => {
      // A retried read starts again: what the failed attempt found unreadable is found again.
      unreadable.length = 0;
      count.restart();
      const light = lighten ? lightener() : undefined;
      const list = tracker.list({}, { onUnreadable: (u) => unreadable.push(u) });
      return collect(light === undefined ? list : mapped(list, light), (item) => {
        count.item(item);
      }).finally(() => {
        count.end();
      });
    },
  });
  return { items, complete: true, ...(unreadable.length > 0 && { unreadable }) };
}

/**
 * Reads a target through its change feed from a checkpoint (all items without one). Items the
 * feed did not return but that the run needs (parked failures) are fetched one by one.
 */
export async function readChanges(o: {
  lanes: Lanes;
  system: SystemName;
  tracker: Tracker;
  from: Checkpoint | undefined;
  extra: readonly { kind: ItemKind; id: string }[];
  /** Told how many items the feed has given so far (progress). */
  emit?: ((e: SyncEvent) => void) | undefined;
}): Promise<SideRead> {
  const unreadable: UnreadableItem[] = [];
  const count = readCount(o.emit, o.system);
  // The items as the pages come, and the last page's checkpoint: a page's checkpoint may hold
  // the feed's whole window (Jira's hashes of the issues in it), and kept for every page they
  // grew with the square of the pages — 101 searches after a lifted-limit Jira migration held
  // 50 MB of them.
  const byKey = new Map<string, WorkItem>();
  let last: Checkpoint | undefined;
  let complete = false;
  await o.lanes.run(o.system, {
    name: `read ${o.system} changes`,
    kind: "read",
    run: async () => {
      // A retried read starts again.
      unreadable.length = 0;
      byKey.clear();
      last = undefined;
      complete = false;
      count.restart();
      try {
        for await (const page of o.tracker.changes(o.from, {
          onUnreadable: (u) => unreadable.push(u),
        })) {
          for (const change of page.changes) {
            if (change.kind !== "upsert") continue;
            count.item(change.item);
            byKey.set(`${change.item.kind}:${change.item.id}`, change.item);
          }
          last = page.checkpoint;
          complete ||= page.complete;
        }
      } finally {
        count.end();
      }
    },
  });
  const fresh = new Set<string>();
  const gone = new Set<string>();
  // A parked item read again by id replaces what the feed found unreadable of it.
  const refetched = new Set<string>();
  for (const ref of o.extra) {
    if (byKey.has(`${ref.kind}:${ref.id}`) || refetched.has(ref.id)) continue;
    refetched.add(ref.id);
    const bad: UnreadableItem[] = [];
    const item = await fetchOne(o.lanes, o.system, o.tracker, ref, (u) => bad.push(u));
    if (item) byKey.set(`${ref.kind}:${ref.id}`, item);
    // Not there, and not merely hidden (that is handed to `bad`): deleted. A feed never shows a
    // deletion, so this read by id is what lets the plan mirror it — and not take the item's
    // tinyPM changes for nothing to do.
    else if (bad.length === 0) gone.add(`${ref.kind}:${ref.id}`);
    // Only a payload that fails validation is parked again here; a 404 reads as before.
    unreadable.push(...bad.filter((u) => u.error.code === "payload_invalid"));
    fresh.add(`${ref.kind}:${ref.id}`);
  }
  const read = new Set([...byKey.values()].map((i) => i.id));
  const stillBad = unreadable.filter((u) => !read.has(u.id));
  return {
    items: [...byKey.values()],
    fresh,
    complete,
    ...(gone.size > 0 && { gone }),
    checkpoint: last ?? o.from,
    ...(stillBad.length > 0 && { unreadable: stillBad }),
  };
}

/**
 * One item by id: undefined when the service no longer has it. With `onUnreadable`, an item the
 * service no longer shows but may still have (GitHub's 404 where a deleted issue is a 410) is
 * handed there, and undefined returned; without, it reads as gone.
 */
export function fetchOne(
  lanes: Lanes,
  system: SystemName,
  tracker: Tracker,
  ref: { kind: ItemKind; id: string },
  onUnreadable?: (item: UnreadableItem) => void,
): Promise<WorkItem | undefined> {
  return lanes.run(system, {
    name: `get ${ref.kind} ${ref.id}`,
    kind: "read",
    run: () => tracker.get(ref, onUnreadable === undefined ? {} : { onUnreadable }),
  });
}
