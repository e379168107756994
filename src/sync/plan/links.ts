import type { ItemKind, SystemName } from "../../core/model.js";
import type { LinkRecord, PendingWrite } from "../../state/store.js";
import type { Side } from "./merge.js";
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
 * A stored link held without its base snapshots: what a run needs of the links it leaves alone
 * — the ids, the deletions the bases record, the title they hold, and the digest of tinyPM's base
 * (to tell an item read unchanged without its base). A quiet sync holds every link of the job
 * this way: 0.3 KB a link instead of 1.1 KB with its bases parsed (docs/benchmarks.md). Reading
 * a base from it is a fault of the caller's, named as such: a run that needs bases reads the
 * links with them (read/run-read.ts).
 */
const SYSTEMS: readonly SystemName[] = ["tinypm", "github", "jira", "memory"];

export class BaselessLink implements LinkView {
  readonly kind: ItemKind;
  readonly tinypmId: string;
  readonly targetId: string;
  readonly origin: SystemName;
  readonly parentTinypmId: string | undefined;
  readonly syncedAt: string;
  readonly pendingWrites: readonly PendingWrite[] | undefined;
  /** `snapshotHash` of tinyPM's base. */
  readonly tinypmHash: string;
  /** Bit 1: deleted on tinyPM; bit 2: deleted on the target (as the bases record it). */
  readonly #deleted: number;
  /** The title the bases hold (tinyPM's, else the target's), for reports naming the item. */
  readonly title: string | undefined;

  constructor(record: LinkRecord) {
    // The state's rows give each link its own copies of these words ("task", "tinypm": 2.2 MB
    // at 50,000 links); the literals are shared.
    this.kind = record.kind === "story" ? "story" : "task";
    this.tinypmId = record.tinypmId;
    this.targetId = record.targetId;
    this.origin = SYSTEMS.find((x) => x === record.origin) ?? record.origin;
    this.parentTinypmId = record.parentTinypmId;
    this.syncedAt = record.updatedAt;
    this.pendingWrites = record.pendingWrites;
    this.tinypmHash = record.base.tinypmHash;
    const t = snapshotFromJson(record.base.tinypm);
    const g = snapshotFromJson(record.base.target);
    this.#deleted = (t.deleted === true ? 1 : 0) | (g.deleted === true ? 2 : 0);
    const title = t.fields.title ?? g.fields.title;
    this.title = typeof title === "string" ? title : undefined;
  }

  deletedOn(side: Side): boolean {
    return (this.#deleted & (side === "tinypm" ? 1 : 2)) !== 0;
  }

  get baseTinypm(): Snapshot {
    return this.#unread("tinyPM");
  }

  get baseTarget(): Snapshot {
    return this.#unread("target");
  }

  #unread(side: string): never {
    throw new Error(
      `internal: the ${side} base of the ${this.kind} link ${this.tinypmId} ↔ ${this.targetId} was read from a link held without its bases; the run must read its links in full first`,
    );
  }
}

/** Whether the link's base records its item deleted on `side` (with or without its bases). */
export function baseDeleted(link: LinkView, side: Side): boolean {
  if (link instanceof BaselessLink) return link.deletedOn(side);
  return (side === "tinypm" ? link.baseTinypm : link.baseTarget).deleted === true;
}

/**
 * The title a link's bases hold, `first` side's before the other's (a link held without its bases
 * keeps tinyPM's before the target's).
 */
export function baseTitle(link: LinkView, first: Side = "tinypm"): string | undefined {
  if (link instanceof BaselessLink) return link.title;
  const [a, b] =
    first === "tinypm" ? [link.baseTinypm, link.baseTarget] : [link.baseTarget, link.baseTinypm];
  const title = a.fields.title ?? b.fields.title;
  return typeof title === "string" ? title : undefined;
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
