import type { ItemKind, SystemName } from "../../core/model.js";
import type { LinkRecord } from "../../state/store.js";
import type { LinkView } from "./plan-types.js";
import {
  sameJson,
  snapshotFromJson,
  snapshotHash,
  snapshotToJson,
  type Snapshot,
} from "./snapshot.js";

/** A stored link as the planner sees it. */
export function linkView(record: LinkRecord): LinkView {
  const baseTinypm = snapshotFromJson(record.base.tinypm);
  return {
    kind: record.kind,
    tinypmId: record.tinypmId,
    targetId: record.targetId,
    origin: record.origin,
    parentTinypmId: record.parentTinypmId,
    baseTinypm,
    baseTarget: sharing(baseTinypm, snapshotFromJson(record.base.target)),
    syncedAt: record.updatedAt,
    ...(record.pendingWrites !== undefined && { pendingWrites: record.pendingWrites }),
  };
}

/**
 * The target's base with the parts equal to tinyPM's base taken from it. After a sync both sides
 * hold the same content, so a run holding every link of a large project kept each base twice:
 * 1.4 KB a link parsed, 0.8 KB shared (16,000 links, docs/benchmarks.md). Snapshots are never
 * changed in place, so sharing is safe.
 */
export function sharing(tinypm: Snapshot, target: Snapshot): Snapshot {
  const fields = sameJson(tinypm.fields, target.fields) ? tinypm.fields : target.fields;
  const comments = sameJson(tinypm.comments, target.comments) ? tinypm.comments : target.comments;
  const timeEntries = sameJson(tinypm.timeEntries, target.timeEntries)
    ? tinypm.timeEntries
    : target.timeEntries;
  return { ...target, fields, comments, timeEntries };
}

/** A link record with its base snapshots, ready to store. */
export function linkRecord(o: {
  job: string;
  kind: ItemKind;
  tinypmId: string;
  targetSystem: SystemName;
  targetId: string;
  origin: SystemName;
  parentTinypmId?: string | undefined;
  baseTinypm: Snapshot;
  baseTarget: Snapshot;
  now: Date;
}): LinkRecord {
  return {
    job: o.job,
    kind: o.kind,
    tinypmId: o.tinypmId,
    targetSystem: o.targetSystem,
    targetId: o.targetId,
    origin: o.origin,
    parentTinypmId: o.parentTinypmId,
    base: baseOf(o.baseTinypm, o.baseTarget),
    updatedAt: o.now.toISOString(),
  };
}

export function baseOf(tinypm: Snapshot, target: Snapshot): LinkRecord["base"] {
  return {
    tinypm: snapshotToJson(tinypm),
    target: snapshotToJson(target),
    tinypmHash: snapshotHash(tinypm),
    targetHash: snapshotHash(target),
  };
}
