import type { ItemKind, SystemName } from "../../core/model.js";
import type { LinkRecord } from "../../state/store.js";
import type { LinkView } from "./plan-types.js";
import { snapshotFromJson, snapshotHash, snapshotToJson, type Snapshot } from "./snapshot.js";

/** A stored link as the planner sees it. */
export function linkView(record: LinkRecord): LinkView {
  return {
    kind: record.kind,
    tinypmId: record.tinypmId,
    targetId: record.targetId,
    origin: record.origin,
    parentTinypmId: record.parentTinypmId,
    baseTinypm: snapshotFromJson(record.base.tinypm),
    baseTarget: snapshotFromJson(record.base.target),
    syncedAt: record.updatedAt,
    ...(record.pendingWrites !== undefined && { pendingWrites: record.pendingWrites }),
  };
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
