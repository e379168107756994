import type { JsonValue, WorkItem, WorkItemFieldName } from "../../core/model.js";
import type { PendingWrite } from "../../state/store.js";
import type { LinkView } from "./plan-types.js";
import { sameJson, type Snapshot } from "./snapshot.js";
import { UNKNOWN_BASE } from "./unknown-base.js";

/** One side of a pair as read this run, for settling its pending writes. */
export interface SideNow {
  readonly snapshot: Snapshot;
  /** The item's change time (tinyPM keeps none). */
  readonly updatedAt?: string | undefined;
}

/**
 * The link with the base its pending writes call for (pure). A pending write is a field write
 * recorded before it was sent whose base update never came (the run stopped in between). Per
 * field written on a side, oldest record first:
 * - the side holds the written value: the write landed, and both bases move as the base update
 *   would have moved them: the written side's to the value written, the other side's to the
 *   value the write came from (the record's `source`; the value written for an older record).
 *   The pair agreed at the write, so a person's change of either side since — the source side
 *   set back included — is a change like any other and flows; keeping the other side's older
 *   base would take that side for unchanged and drop such a change for good;
 * - the side holds the old base value and its item is untouched since the read before the write
 *   (same change time, and not in the second the write started: change times are per second):
 *   the write never landed, the base stays;
 * - anything else (tinyPM, which keeps no change times, included): a person may have reverted
 *   the write, or changed the field since; the field's base becomes unknown on both sides, so
 *   differing sides make a conflict rather than a silent write over that edit.
 * A side not read this run (`undefined`) keeps its records for a later run.
 */
export function settlePendingWrites(
  link: LinkView,
  tinypm: SideNow,
  target: SideNow | undefined,
): LinkView {
  const writes = link.pendingWrites ?? [];
  if (writes.length === 0) return link;
  const baseT: Record<string, JsonValue> = { ...link.baseTinypm.fields };
  const baseG: Record<string, JsonValue> = { ...link.baseTarget.fields };
  for (const w of writes) {
    const now = w.side === "tinypm" ? tinypm : target;
    if (now === undefined) continue;
    const base = w.side === "tinypm" ? baseT : baseG;
    const other = w.side === "tinypm" ? baseG : baseT;
    for (const [field, written] of Object.entries(w.fields)) {
      const value = written ?? undefined;
      const held = now.snapshot.fields[field];
      if (sameJson(held, value)) {
        setField(base, field, value);
        // A field the update wrote on both sides (a merged description): each side's own write
        // settles its base.
        if (!writes.some((x) => x.side !== w.side && field in x.fields))
          setField(other, field, w.source === undefined ? value : (w.source[field] ?? undefined));
      } else if (!(sameJson(held, base[field]) && untouched(w, now))) {
        baseT[field] = UNKNOWN_BASE;
        baseG[field] = UNKNOWN_BASE;
      }
    }
  }
  return {
    ...link,
    baseTinypm: { ...link.baseTinypm, fields: baseT },
    baseTarget: { ...link.baseTarget, fields: baseG },
  };
}

function setField(
  fields: Record<string, JsonValue>,
  name: string,
  value: JsonValue | undefined,
): void {
  if (value === undefined) Reflect.deleteProperty(fields, name);
  else fields[name] = value;
}

/**
 * The item has not changed since the read before the write, as far as its change time says: the
 * same change time, from a second before the one the write started in (`startedAt` is on the
 * side's clock, at or before its true time). A write that landed would have stamped a later
 * second; in the write's own second a landed write and a person's revert would leave it as is.
 */
function untouched(w: PendingWrite, now: SideNow): boolean {
  if (w.updatedAt === undefined || now.updatedAt === undefined) return false;
  if (Date.parse(now.updatedAt) !== Date.parse(w.updatedAt)) return false;
  return secondOf(w.updatedAt) < secondOf(w.startedAt);
}

function secondOf(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000);
}

/**
 * The pending write of one side: each field about to be written whose value differs from what
 * the side holds, at the value written, as the snapshot compares it (`null`: cleared), with the
 * other side's value of it as read (`source`). Undefined when nothing changes on that side.
 */
export function pendingWriteOf(o: {
  readonly side: PendingWrite["side"];
  readonly before: Snapshot;
  readonly after: Snapshot;
  /** The other side as the update read it. */
  readonly other: Snapshot;
  readonly names: readonly WorkItemFieldName[];
  readonly item: WorkItem;
  readonly startedAt: string;
}): PendingWrite | undefined {
  const fields: Record<string, JsonValue> = {};
  const source: Record<string, JsonValue> = {};
  for (const name of o.names) {
    const value = o.after.fields[name];
    if (sameJson(value, o.before.fields[name])) continue;
    fields[name] = value ?? null;
    source[name] = o.other.fields[name] ?? null;
  }
  if (Object.keys(fields).length === 0) return undefined;
  return {
    side: o.side,
    fields,
    source,
    ...(o.item.updatedAt === undefined ? {} : { updatedAt: o.item.updatedAt }),
    startedAt: o.startedAt,
  };
}
