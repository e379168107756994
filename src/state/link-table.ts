import type { Database, Statement } from "better-sqlite3";
import { RELEASE_SQL } from "./claim-table.js";
import { InternalError } from "../core/errors.js";
import type { ItemKind, SystemName } from "../core/model.js";
import type {
  BaseSnapshot,
  IntentDraft,
  IntentRecord,
  LinkRecord,
  PendingWrite,
} from "./records.js";
import { parseJson } from "./records.js";
import { alreadyLinkedError, noLinkError } from "./state-errors.js";

/** A `links` row, as both backends store it. */
export interface LinkRow {
  job: string;
  kind: ItemKind;
  tinypm_id: string;
  target_system: SystemName;
  target_id: string;
  origin: SystemName;
  parent_tinypm_id: string | null;
  base_tinypm: string;
  base_target: string;
  tinypm_hash: string;
  target_hash: string;
  updated_at: string;
  pending_writes: string | null;
}

/** An `intents` row, as both backends store it. */
export interface IntentRow {
  id: number;
  job: string;
  kind: ItemKind;
  origin_system: SystemName;
  origin_id: string;
  target_system: SystemName;
  payload_hash: string;
  created_at: string;
  anchor: string | null;
}

interface PageParams {
  job: string;
  kind: string | null;
  afterKind: string;
  afterId: string;
}

/** Links are read in pages of this many rows, so iterating 100k links holds only one page. */
export const PAGE_SIZE = 500;

export function toLink(row: LinkRow): LinkRecord {
  return {
    job: row.job,
    kind: row.kind,
    tinypmId: row.tinypm_id,
    targetSystem: row.target_system,
    targetId: row.target_id,
    origin: row.origin,
    ...(row.parent_tinypm_id === null ? {} : { parentTinypmId: row.parent_tinypm_id }),
    base: {
      tinypm: parseJson(row.base_tinypm),
      target: parseJson(row.base_target),
      tinypmHash: row.tinypm_hash,
      targetHash: row.target_hash,
    },
    updatedAt: row.updated_at,
    ...(row.pending_writes === null ? {} : { pendingWrites: parsePending(row.pending_writes) }),
  };
}

/** The stored pending writes of a link (a list; anything else reads as none). */
function parsePending(text: string): readonly PendingWrite[] | undefined {
  const value = parseJson<unknown>(text);
  return Array.isArray(value) && value.length > 0 ? (value as PendingWrite[]) : undefined;
}

/** The column value of a link's pending writes (`null` when there are none). */
export function pendingColumn(writes: readonly PendingWrite[] | undefined): string | null {
  return writes === undefined || writes.length === 0 ? null : JSON.stringify(writes);
}

export function toIntent(row: IntentRow): IntentRecord {
  return {
    id: row.id,
    job: row.job,
    kind: row.kind,
    originSystem: row.origin_system,
    originId: row.origin_id,
    targetSystem: row.target_system,
    payloadHash: row.payload_hash,
    createdAt: row.created_at,
    ...(row.anchor === null ? {} : { anchor: row.anchor }),
  };
}

function prepare(db: Database) {
  return {
    byTinypm: db.prepare<[string, string, string], LinkRow>(
      "SELECT * FROM links WHERE job = ? AND kind = ? AND tinypm_id = ?",
    ),
    byTarget: db.prepare<[string, string, string], LinkRow>(
      "SELECT * FROM links WHERE job = ? AND kind = ? AND target_id = ?",
    ),
    page: db.prepare<[PageParams], LinkRow>(
      `SELECT * FROM links WHERE job = @job AND (@kind IS NULL OR kind = @kind)
         AND (kind, tinypm_id) > (@afterKind, @afterId) ORDER BY kind, tinypm_id
         LIMIT ${PAGE_SIZE}`,
    ),
    count: db.prepare<[string], { n: number }>("SELECT count(*) AS n FROM links WHERE job = ?"),
    countByKind: db.prepare<[string], { kind: ItemKind; n: number }>(
      "SELECT kind, count(*) AS n FROM links WHERE job = ? GROUP BY kind",
    ),
    upsert: db.prepare(
      `INSERT INTO links (job, kind, tinypm_id, target_system, target_id, origin, parent_tinypm_id,
         base_tinypm, base_target, tinypm_hash, target_hash, updated_at, pending_writes)
       VALUES (@job, @kind, @tinypmId, @targetSystem, @targetId, @origin, @parent,
         @baseTinypm, @baseTarget, @tinypmHash, @targetHash, @updatedAt, @pendingWrites)
       ON CONFLICT (job, kind, tinypm_id) DO UPDATE SET target_system = excluded.target_system,
         target_id = excluded.target_id, origin = excluded.origin,
         parent_tinypm_id = excluded.parent_tinypm_id, base_tinypm = excluded.base_tinypm,
         base_target = excluded.base_target, tinypm_hash = excluded.tinypm_hash,
         target_hash = excluded.target_hash, updated_at = excluded.updated_at,
         pending_writes = excluded.pending_writes`,
    ),
    updateBase: db.prepare(
      `UPDATE links SET base_tinypm = ?, base_target = ?, tinypm_hash = ?, target_hash = ?,
         updated_at = ?, pending_writes = NULL WHERE job = ? AND kind = ? AND tinypm_id = ?`,
    ),
    pending: db.prepare(
      "UPDATE links SET pending_writes = ? WHERE job = ? AND kind = ? AND tinypm_id = ?",
    ),
    remove: db.prepare("DELETE FROM links WHERE job = ? AND kind = ? AND tinypm_id = ?"),
    recordIntent: db.prepare<unknown[], { id: number }>(
      `INSERT INTO intents (job, kind, origin_system, origin_id, target_system, payload_hash, created_at,
         anchor)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (job, kind, origin_system, origin_id, target_system)
       DO UPDATE SET payload_hash = excluded.payload_hash, anchor = excluded.anchor RETURNING id`,
    ),
    intents: db.prepare<[string], IntentRow>("SELECT * FROM intents WHERE job = ? ORDER BY id"),
    dropIntent: db.prepare("DELETE FROM intents WHERE id = ?"),
    releaseClaim: db.prepare(RELEASE_SQL),
    intentById: db.prepare<[number], IntentRow>("SELECT * FROM intents WHERE id = ?"),
  };
}

/** The link, base snapshot and intent operations of the state store. */
export type LinkTable = ReturnType<typeof createLinkTable>;

/** Builds the link operations on an open, migrated database. `now` stamps `updatedAt`. */
export function createLinkTable(db: Database, now: () => Date) {
  const q = prepare(db);
  // Inserts the link and drops the intent in one transaction (crash-safe creates).
  const confirm = db.transaction((intentId: number, link: LinkRecord): void => {
    const intent = q.intentById.get(intentId);
    if (intent !== undefined) checkIntentMatches(toIntent(intent), link);
    put(link);
    q.dropIntent.run(intentId);
  });
  const recordIntent = (i: IntentDraft): number => {
    const created = now().toISOString();
    const row = q.recordIntent.get(
      ...[i.job, i.kind, i.originSystem, i.originId, i.targetSystem, i.payloadHash, created],
      i.anchor ?? null,
    );
    return row?.id ?? 0;
  };
  // A batch's intents in one transaction: all of them recorded, or none.
  const recordMany = db.transaction((drafts: readonly IntentDraft[]): number[] =>
    drafts.map(recordIntent),
  );
  const put = (link: LinkRecord): void => {
    const other = q.byTarget.get(link.job, link.kind, link.targetId);
    if (other !== undefined && other.tinypm_id !== link.tinypmId) {
      throw alreadyLinkedError(link, other.tinypm_id);
    }
    q.upsert.run(bindLink(link));
  };
  return {
    getLinkByTinypm: (job: string, kind: ItemKind, id: string) => mapRow(q.byTinypm, job, kind, id),
    getLinkByTarget: (job: string, kind: ItemKind, id: string) => mapRow(q.byTarget, job, kind, id),
    links: (job: string, kind?: ItemKind) => pages(q.page, job, kind),
    countLinks: (job: string): number => q.count.get(job)?.n ?? 0,
    countLinksByKind: (job: string): Partial<Record<ItemKind, number>> =>
      Object.fromEntries(q.countByKind.all(job).map((r) => [r.kind, r.n])),
    putLink: (link: LinkRecord): void => {
      if (db.inTransaction) put(link);
      else db.transaction(put)(link);
    },
    updateBase(job: string, kind: ItemKind, tinypmId: string, base: BaseSnapshot): void {
      const { changes } = q.updateBase.run(
        ...[JSON.stringify(base.tinypm), JSON.stringify(base.target), base.tinypmHash],
        ...[base.targetHash, now().toISOString(), job, kind, tinypmId],
      );
      if (changes === 0) {
        throw noLinkError(job, kind, tinypmId);
      }
    },
    recordPendingWrites(
      job: string,
      kind: ItemKind,
      tinypmId: string,
      writes: readonly PendingWrite[],
    ): void {
      const { changes } = q.pending.run(pendingColumn(writes), job, kind, tinypmId);
      if (changes === 0) throw noLinkError(job, kind, tinypmId);
    },
    deleteLink: (job: string, kind: ItemKind, tinypmId: string): void => {
      q.remove.run(job, kind, tinypmId);
    },
    recordIntent,
    recordIntents: (drafts: readonly IntentDraft[]): number[] => recordMany(drafts),
    confirmIntent: (intentId: number, link: LinkRecord): void => {
      confirm(intentId, link);
    },
    pendingIntents: (job: string): IntentRecord[] => q.intents.all(job).map(toIntent),
    // A dropped import intent releases its claim: the create never happened.
    dropIntent: db.transaction((intentId: number): void => {
      q.releaseClaim.run(intentId);
      q.dropIntent.run(intentId);
    }) as (intentId: number) => void,
  };
}

/** A link confirming an intent must be the link of the item that intent was about. */
export function checkIntentMatches(intent: IntentRecord, link: LinkRecord): void {
  const originId = intent.originSystem === "tinypm" ? link.tinypmId : link.targetId;
  const matches =
    intent.job === link.job &&
    intent.kind === link.kind &&
    intent.targetSystem === (intent.originSystem === "tinypm" ? link.targetSystem : "tinypm") &&
    intent.originId === originId;
  if (!matches) {
    throw new InternalError(
      `Intent ${intent.id} (${intent.job} ${intent.kind} ${intent.originSystem}:${intent.originId} → ` +
        `${intent.targetSystem}) cannot be confirmed by the link of tinyPM ${link.tinypmId} ⇄ ` +
        `${link.targetSystem} ${link.targetId} in job ${link.job}.`,
      { hint: "Confirm an intent with the link of the item it created (a bug in the caller)." },
    );
  }
}

function mapRow(
  stmt: Statement<[string, string, string], LinkRow>,
  job: string,
  kind: ItemKind,
  id: string,
): LinkRecord | undefined {
  const row = stmt.get(job, kind, id);
  return row === undefined ? undefined : toLink(row);
}

export function bindLink(link: LinkRecord): Record<string, string | null> {
  return {
    job: link.job,
    kind: link.kind,
    tinypmId: link.tinypmId,
    targetSystem: link.targetSystem,
    targetId: link.targetId,
    origin: link.origin,
    parent: link.parentTinypmId ?? null,
    baseTinypm: JSON.stringify(link.base.tinypm),
    baseTarget: JSON.stringify(link.base.target),
    tinypmHash: link.base.tinypmHash,
    targetHash: link.base.targetHash,
    updatedAt: link.updatedAt,
    pendingWrites: pendingColumn(link.pendingWrites),
  };
}

/**
 * Streams links page by page with keyset pagination on the primary key. A page is read and
 * released before the caller sees it, so the caller may write (updateBase, deleteLink) while
 * iterating, which an open better-sqlite3 iterator would forbid.
 */
function* pages(
  stmt: Statement<[PageParams], LinkRow>,
  job: string,
  kind: ItemKind | undefined,
): Generator<LinkRecord, undefined, undefined> {
  const params: PageParams = { job, kind: kind ?? null, afterKind: "", afterId: "" };
  for (;;) {
    const rows = stmt.all(params);
    for (const row of rows) yield toLink(row);
    const last = rows.at(-1);
    if (last === undefined || rows.length < PAGE_SIZE) return;
    params.afterKind = last.kind;
    params.afterId = last.tinypm_id;
  }
}
