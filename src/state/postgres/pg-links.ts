import type { ItemKind, JsonValue, Marker } from "../../core/model.js";
import type { LinkIdentity } from "../identity-table.js";
import {
  PAGE_SIZE,
  pendingColumn,
  toIntent,
  toLink,
  type IntentRow,
  type LinkRow,
} from "../link-table.js";
import type {
  BaseSnapshot,
  IntentDraft,
  IntentRecord,
  LinkRecord,
  PendingWrite,
} from "../records.js";
import { parseJson } from "../records.js";
import { noLinkError } from "../state-errors.js";
import { DROP_INTENT } from "./pg-claims.js";
import type { Db } from "./pg-db.js";
import { confirmIntentAtOnce, putLinkChecked } from "./pg-link-writes.js";

async function one(db: Db, where: string, values: unknown[]): Promise<LinkRecord | undefined> {
  const { rows } = await db.query<LinkRow>(`SELECT * FROM links WHERE ${where}`, values);
  return rows[0] === undefined ? undefined : toLink(rows[0]);
}

/** Links, identities and create intents on PostgreSQL: the same rules as link-table.ts. */
export function pgLinks(db: Db, now: () => Date) {
  return {
    getLinkByTinypm: (job: string, kind: ItemKind, id: string) =>
      one(db, "job = $1 AND kind = $2 AND tinypm_id = $3", [job, kind, id]),
    getLinkByTarget: (job: string, kind: ItemKind, id: string) =>
      one(db, "job = $1 AND kind = $2 AND target_id = $3", [job, kind, id]),
    links: (job: string, kind?: ItemKind): AsyncIterable<LinkRecord> => ({
      async *[Symbol.asyncIterator]() {
        // Keyset pagination on the primary key: one page in memory, writes meanwhile are fine.
        let after = { kind: "", id: "" };
        for (;;) {
          const { rows } = await db.query<LinkRow>(
            `SELECT * FROM links WHERE job = $1 AND ($2::text IS NULL OR kind = $2)
               AND (kind, tinypm_id) > ($3, $4) ORDER BY kind, tinypm_id LIMIT ${PAGE_SIZE}`,
            [job, kind ?? null, after.kind, after.id],
          );
          for (const row of rows) yield toLink(row);
          const last = rows.at(-1);
          if (last === undefined || rows.length < PAGE_SIZE) return;
          after = { kind: last.kind, id: last.tinypm_id };
        }
      },
    }),
    async countLinks(job: string): Promise<number> {
      const { rows } = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM links WHERE job = $1",
        [job],
      );
      return rows[0]?.n ?? 0;
    },
    async countLinksByKind(job: string): Promise<Partial<Record<ItemKind, number>>> {
      const { rows } = await db.query<{ kind: ItemKind; n: number }>(
        "SELECT kind, count(*)::int AS n FROM links WHERE job = $1 GROUP BY kind",
        [job],
      );
      return Object.fromEntries(rows.map((r) => [r.kind, r.n]));
    },
    putLink: (link: LinkRecord): Promise<void> => putLinkChecked(db, link),
    async updateBase(job: string, kind: ItemKind, tinypmId: string, base: BaseSnapshot) {
      const { rowCount } = await db.query(
        `UPDATE links SET base_tinypm = $1, base_target = $2, tinypm_hash = $3, target_hash = $4,
           updated_at = $5, pending_writes = NULL WHERE job = $6 AND kind = $7 AND tinypm_id = $8`,
        [
          ...[JSON.stringify(base.tinypm), JSON.stringify(base.target), base.tinypmHash],
          ...[base.targetHash, now().toISOString(), job, kind, tinypmId],
        ],
        "tps_update_base",
      );
      if (rowCount === 0) throw noLinkError(job, kind, tinypmId);
    },
    async recordPendingWrites(
      job: string,
      kind: ItemKind,
      tinypmId: string,
      writes: readonly PendingWrite[],
    ): Promise<void> {
      const { rowCount } = await db.query(
        "UPDATE links SET pending_writes = $1 WHERE job = $2 AND kind = $3 AND tinypm_id = $4",
        [pendingColumn(writes), job, kind, tinypmId],
      );
      if (rowCount === 0) throw noLinkError(job, kind, tinypmId);
    },
    async deleteLink(job: string, kind: ItemKind, tinypmId: string): Promise<void> {
      await db.query("DELETE FROM links WHERE job = $1 AND kind = $2 AND tinypm_id = $3", [
        ...[job, kind, tinypmId],
      ]);
    },
    async getLinkIdentity(job: string, kind: ItemKind, tinypmId: string) {
      const { rows } = await db.query<{ marker: string; meta: string }>(
        "SELECT marker, meta FROM link_identity WHERE job = $1 AND kind = $2 AND tinypm_id = $3",
        [job, kind, tinypmId],
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      const marker = parseJson<Marker | null>(row.marker);
      const meta = parseJson<JsonValue>(row.meta);
      if (marker === null || typeof marker !== "object") return undefined;
      const identity: LinkIdentity = {
        marker,
        meta:
          meta !== null && typeof meta === "object" && !Array.isArray(meta)
            ? (meta as Record<string, JsonValue>)
            : {},
      };
      return identity;
    },
    async putLinkIdentity(job: string, kind: ItemKind, tinypmId: string, id: LinkIdentity) {
      await db.query(
        `INSERT INTO link_identity (job, kind, tinypm_id, marker, meta) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (job, kind, tinypm_id) DO UPDATE SET marker = excluded.marker, meta = excluded.meta`,
        [job, kind, tinypmId, JSON.stringify(id.marker), JSON.stringify(id.meta)],
      );
    },
    async recordIntent(i: IntentDraft): Promise<number> {
      const { rows } = await db.query<{ id: number }>(
        `INSERT INTO intents (job, kind, origin_system, origin_id, target_system, payload_hash, created_at,
           anchor)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (job, kind, origin_system, origin_id, target_system)
         DO UPDATE SET payload_hash = excluded.payload_hash, anchor = excluded.anchor RETURNING id`,
        [
          i.job,
          i.kind,
          i.originSystem,
          i.originId,
          i.targetSystem,
          i.payloadHash,
          now().toISOString(),
          i.anchor ?? null,
        ],
        "tps_record_intent",
      );
      return rows[0]?.id ?? 0;
    },
    async recordIntents(drafts: readonly IntentDraft[]): Promise<number[]> {
      if (drafts.length === 0) return [];
      // One statement for the batch: atomic. A draft given twice is one intent (the later wins).
      const key = (i: IntentDraft): string =>
        JSON.stringify([i.job, i.kind, i.originSystem, i.originId, i.targetSystem]);
      const unique = [...new Map(drafts.map((i) => [key(i), i])).values()];
      const column = <T>(f: (i: IntentDraft) => T): T[] => unique.map(f);
      const { rows } = await db.query<Omit<IntentRow, "payload_hash" | "created_at" | "anchor">>(
        `INSERT INTO intents (job, kind, origin_system, origin_id, target_system, payload_hash, created_at,
           anchor)
         SELECT j, k, os, oi, ts, ph, $7::text, an FROM unnest($1::text[], $2::text[], $3::text[],
           $4::text[], $5::text[], $6::text[], $8::text[]) AS u(j, k, os, oi, ts, ph, an)
         ON CONFLICT (job, kind, origin_system, origin_id, target_system)
         DO UPDATE SET payload_hash = excluded.payload_hash, anchor = excluded.anchor
         RETURNING id, job, kind, origin_system, origin_id, target_system`,
        [
          ...[column((i) => i.job), column((i) => i.kind), column((i) => i.originSystem)],
          ...[column((i) => i.originId), column((i) => i.targetSystem)],
          ...[column((i) => i.payloadHash), now().toISOString()],
          column((i) => i.anchor ?? null),
        ],
      );
      const ids = new Map(
        rows.map((r) => [
          JSON.stringify([r.job, r.kind, r.origin_system, r.origin_id, r.target_system]),
          r.id,
        ]),
      );
      return drafts.map((i) => ids.get(key(i)) ?? 0);
    },
    confirmIntent: (intentId: number, link: LinkRecord, identity?: LinkIdentity): Promise<void> =>
      // The link, the end of the intent and the identity commit together: one statement.
      confirmIntentAtOnce(db, intentId, link, identity),
    async pendingIntents(job: string): Promise<IntentRecord[]> {
      const { rows } = await db.query<IntentRow>(
        "SELECT * FROM intents WHERE job = $1 ORDER BY id",
        [job],
      );
      return rows.map(toIntent);
    },
    async dropIntent(intentId: number): Promise<void> {
      await db.query(DROP_INTENT, [intentId]);
    },
  };
}
