import type { ItemKind, SystemName, WorkItem } from "../../core/model.js";
import type { Tracker, UnreadableItem } from "../../core/tracker.js";
import type { CompiledMapping } from "../../mapping/compile.js";
import type { Lanes } from "../../gate/lanes.js";
import type { LinkView } from "../plan/plan-types.js";
import { sameAsBase, targetSnapshot, tinypmSnapshot } from "../plan/snapshot.js";
import { baseDeleted } from "../plan/links.js";
import { fetchOne, type SideRead } from "./read.js";

/** Why a listed (or missing) linked target item is read again by itself. */
export type RecheckReason = "missing" | "target-changed" | "tinypm-changed";

export interface Recheck {
  readonly kind: ItemKind;
  readonly id: string;
  readonly reason: RecheckReason;
}

const key = (kind: ItemKind, id: string): string => `${kind}:${id}`;

/**
 * The linked target items a listing cannot be trusted for (pure). GitHub's listings and Jira's
 * search lag writes: for a while they show an issue as it was (or not at all). A listed copy is
 * good enough only where the engine would do nothing with it; it is read again by itself where
 * the plan would act on it:
 * - `missing`: a complete read did not return it (it would be taken for deleted);
 * - `target-changed`: it differs from the last synced base (a stale copy would be taken for a
 *   person's edit back to older values, and written over the newer ones);
 * - `tinypm-changed`: its tinyPM counterpart changed (its newer content, not yet listed, would
 *   be merged as if it were the old one, and overwritten).
 * Items already read one by one (`read.fresh`) and links whose target item is gone are left out.
 */
export function rechecks(o: {
  read: SideRead;
  links: readonly LinkView[];
  tinypmItems: readonly WorkItem[];
  mapping: CompiledMapping;
}): Recheck[] {
  const listed = new Map(o.read.items.map((i) => [key(i.kind, i.id), i]));
  const tinypm = new Map(o.tinypmItems.map((i) => [key(i.kind, i.id), i]));
  const out: Recheck[] = [];
  for (const link of o.links) {
    if (baseDeleted(link, "target")) continue;
    const k = key(link.kind, link.targetId);
    if (o.read.fresh?.has(k) === true) continue;
    const recheck = (reason: RecheckReason): void => {
      out.push({ kind: link.kind, id: link.targetId, reason });
    };
    const item = listed.get(k);
    if (item === undefined) {
      if (o.read.complete) recheck("missing");
      continue;
    }
    if (!sameAsBase(targetSnapshot(o.mapping, item), link.baseTarget)) {
      recheck("target-changed");
      continue;
    }
    const counterpart = tinypm.get(key(link.kind, link.tinypmId));
    if (
      counterpart !== undefined &&
      !sameAsBase(tinypmSnapshot(o.mapping, counterpart), link.baseTinypm)
    )
      recheck("tinypm-changed");
  }
  return out;
}

/**
 * Reads the items `rechecks` names one by one (a single issue's `GET` is current on both
 * services) and puts them in place of their listed copies. An item the service no longer has is
 * dropped from the read: after a complete read that is what marks it deleted. One it no longer
 * shows but may still have (GitHub's 404) is dropped too and named in `unreadable`: the plan
 * parks it instead.
 */
export async function recheckTargetRead(o: {
  lanes: Lanes;
  system: SystemName;
  tracker: Tracker;
  read: SideRead;
  rechecks: readonly Recheck[];
}): Promise<SideRead> {
  if (o.rechecks.length === 0) return o.read;
  const unreadable: UnreadableItem[] = [...(o.read.unreadable ?? [])];
  const fresh = await Promise.all(
    o.rechecks.map((r) =>
      fetchOne(o.lanes, o.system, o.tracker, { kind: r.kind, id: r.id }, (u) => unreadable.push(u)),
    ),
  );
  const byKey = new Map(o.read.items.map((i) => [key(i.kind, i.id), i]));
  const freshKeys = new Set(o.read.fresh);
  o.rechecks.forEach((r, n) => {
    const k = key(r.kind, r.id);
    const item = fresh[n];
    freshKeys.add(k);
    if (item === undefined) byKey.delete(k);
    else byKey.set(k, item);
  });
  return {
    ...o.read,
    items: [...byKey.values()],
    fresh: freshKeys,
    ...(unreadable.length > 0 && { unreadable }),
  };
}
