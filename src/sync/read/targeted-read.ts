import type { ItemKind, WorkItem } from "../../core/model.js";
import type { UnreadableItem } from "../../core/tracker.js";
import type { Lanes } from "../../gate/lanes.js";
import type { LinkView } from "../plan/plan-types.js";
import { fetchOne, type SideRead } from "./read.js";
import type { TinypmRead } from "./read-tinypm.js";
import type { EngineOptions } from "../run-options.js";

/** Both sides of a run limited to named target items, and what was read of tinyPM. */
export interface TargetedSides {
  readonly tinypm: SideRead;
  readonly target: SideRead;
  readonly tinypmRead: TinypmRead;
}

const key = (kind: ItemKind, id: string): string => `${kind}:${id}`;

/**
 * The reads of a run limited to the target items a webhook named: each named item by id on the
 * target, then the tinyPM counterparts of the linked ones by id — never a listing of either
 * project, so the cost follows the items named, not the projects' size. A named linked item the
 * target no longer has is recorded as gone (its deletion is planned per `onDelete`).
 *
 * Returns `undefined` when a named item is not linked (new on the target, or a copy whose link
 * was lost): matching it needs every tinyPM item, so the run reads as a normal sync does.
 */
export async function readTargeted(
  o: Pick<EngineOptions, "lanes" | "targetSystem" | "target" | "tinypm">,
  links: readonly LinkView[],
  named: readonly string[],
): Promise<TargetedSides | undefined> {
  const byTargetId = new Map<string, LinkView[]>();
  for (const l of links) byTargetId.set(l.targetId, [...(byTargetId.get(l.targetId) ?? []), l]);
  const linked = new Map(links.map((l) => [key(l.kind, l.targetId), l]));
  const items: WorkItem[] = [];
  const fresh = new Set<string>();
  const gone = new Set<string>();
  const counterparts: LinkView[] = [];
  const invisible: UnreadableItem[] = [];
  for (const id of new Set(named)) {
    const known = byTargetId.get(id) ?? [];
    const seen = invisible.length;
    const item = await fetchOne(
      o.lanes,
      o.targetSystem,
      o.target,
      { kind: known[0]?.kind ?? "story", id },
      (u) => {
        for (const l of known) invisible.push({ ...u, kind: l.kind });
      },
    );
    if (item === undefined && invisible.length > seen) {
      counterparts.push(...known);
      continue;
    }
    if (item === undefined) {
      for (const l of known) {
        gone.add(key(l.kind, l.targetId));
        counterparts.push(l);
      }
      continue;
    }
    const link = linked.get(key(item.kind, item.id));
    if (link === undefined) return undefined;
    if (fresh.has(key(item.kind, item.id))) continue;
    items.push(item);
    fresh.add(key(item.kind, item.id));
    counterparts.push(link);
  }
  const unreadable: UnreadableItem[] = [];
  const tinypmItems = await readCounterpartsById(o.lanes, o.tinypm, counterparts, (u) =>
    unreadable.push(u),
  );
  const side: SideRead = {
    items: tinypmItems,
    complete: false,
    ...(unreadable.length > 0 && { unreadable }),
  };
  return {
    tinypm: side,
    target: {
      items,
      complete: false,
      fresh,
      gone,
      ...(invisible.length > 0 && { unreadable: invisible }),
    },
    tinypmRead: {
      side,
      info: { complete: false, sections: [], fetched: tinypmItems.length },
    },
  };
}

/** The tinyPM items of these links, each read by id (a task with its story's id). */
async function readCounterpartsById(
  lanes: Lanes,
  tinypm: EngineOptions["tinypm"],
  links: readonly LinkView[],
  onUnreadable: (item: UnreadableItem) => void,
): Promise<WorkItem[]> {
  const out: WorkItem[] = [];
  const seen = new Set<string>();
  for (const l of links) {
    const k = key(l.kind, l.tinypmId);
    if (seen.has(k)) continue;
    seen.add(k);
    const item = await lanes.run("tinypm", {
      name: `get tinypm ${l.kind} ${l.tinypmId}`,
      kind: "read",
      run: async () => {
        // One item per call: an attempt that found it unreadable says so only once it ended.
        let bad: UnreadableItem | undefined;
        const ref = { kind: l.kind, id: l.tinypmId, parentId: l.parentTinypmId };
        const got = await tinypm.get(ref, { onUnreadable: (u) => (bad = u) });
        if (bad !== undefined) onUnreadable(bad);
        return got;
      },
    });
    if (item !== undefined) out.push(item);
  }
  return out;
}
