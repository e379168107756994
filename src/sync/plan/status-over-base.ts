import type { ItemKind } from "../../core/model.js";
import { mergePair } from "./merge.js";
import { settlePendingWrites } from "./pending-writes.js";
import { newestSide } from "./plan.js";
import type { PlanInput } from "./plan-input.js";
import { sameJson, targetSnapshot, tinypmSnapshot } from "./snapshot.js";

/** A linked pair whose status the plan would write to the target over a status equal to its base. */
export interface StatusQuestion {
  readonly kind: ItemKind;
  readonly tinypmId: string;
  readonly targetId: string;
  /** The status the target holds now (in the target's own terms). */
  readonly held: string;
  /** Since when a change would count: the base's change time on the target, else the sync time. */
  readonly since: string;
}

const key = (kind: ItemKind, id: string): string => `${kind}:${id}`;

/**
 * The linked pairs read this run (pure) whose merge writes tinyPM's status to the target while
 * the target's status still equals the link's base — the pairs whose history the target is asked
 * about (read/status-touched.ts), decided from the read and the stored links alone, so that the
 * plan runs once. The status field merges on its own (merge.ts decides field by field), so the
 * question is the plan's own answer for that field. A pair with a pending target write of its
 * status is left out: the tool's own interrupted write would read as a change.
 */
export function statusOverBase(input: PlanInput): StatusQuestion[] {
  if (input.job.direction === "to-tinypm") return [];
  const links = new Map(input.links.map((l) => [key(l.kind, l.tinypmId), l]));
  const target = new Map(input.target.items.map((i) => [key(i.kind, i.id), i]));
  const out: StatusQuestion[] = [];
  // In tinyPM's order, as the plan lists its updates.
  for (const item of input.tinypm.items) {
    const stored = links.get(key(item.kind, item.id));
    if (stored === undefined) continue;
    const targetItem = target.get(key(stored.kind, stored.targetId));
    if (targetItem === undefined) continue;
    if (stored.baseTinypm.deleted === true || stored.baseTarget.deleted === true) continue;
    if (!input.mapping.fieldNames(item.kind).includes("status")) continue;
    const t = tinypmSnapshot(input.mapping, item);
    const g = targetSnapshot(input.mapping, targetItem);
    const link = settlePendingWrites(
      stored,
      { snapshot: t, updatedAt: item.updatedAt },
      { snapshot: g, updatedAt: targetItem.updatedAt },
    );
    if ((link.pendingWrites ?? []).some((w) => w.side === "target" && "status" in w.fields))
      continue;
    if (!sameJson(g.fields.status, link.baseTarget.fields.status)) continue;
    const merge = mergePair({
      fieldNames: ["status"],
      tinypm: t,
      target: g,
      baseTinypm: link.baseTinypm,
      baseTarget: link.baseTarget,
      direction: input.job.direction,
      policy: input.job.conflicts,
      resolved: input.resolved?.get(key(item.kind, item.id)),
      newest: newestSide(link, targetItem, input.now),
      keepTargetEdits: input.job.keepTargetEdits,
    });
    if (!merge.toTarget.includes("status")) continue;
    out.push({
      kind: stored.kind,
      tinypmId: stored.tinypmId,
      targetId: stored.targetId,
      held: targetItem.status,
      since: link.baseTarget.at ?? link.syncedAt,
    });
  }
  return out;
}
