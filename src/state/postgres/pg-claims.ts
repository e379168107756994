import type { SystemName } from "../../core/model.js";
import type { ClaimRecord, ImportClaimResult, IntentDraft } from "../records.js";
import { CLAIMS_OF_SQL, toClaim, type ClaimRow } from "../claim-table.js";
import type { Db } from "./pg-db.js";

/**
 * The claim and the intent in one statement (so one transaction): the claim's upsert returns
 * its holder — this job's new row, or the row another job wrote first (a concurrent claim waits
 * for that one to commit) — and the intent is inserted only when the holder is this job.
 */
const CLAIM = `
  WITH c AS (
    INSERT INTO import_claims (target_system, location, target_id, job, kind, claimed_at)
    VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (target_system, location, target_id) DO UPDATE SET job = import_claims.job
    RETURNING job
  ), i AS (
    INSERT INTO intents (job, kind, origin_system, origin_id, target_system, payload_hash, created_at,
      anchor)
    SELECT $4, $5, $1, $3, $7, $8, $6, $9 FROM c WHERE c.job = $4
    ON CONFLICT (job, kind, origin_system, origin_id, target_system)
    DO UPDATE SET payload_hash = excluded.payload_hash, anchor = excluded.anchor RETURNING id
  )
  SELECT (SELECT job FROM c) AS owner, (SELECT id FROM i) AS intent_id`;

/** Drops an intent and, for an import whose item is not linked, releases its claim. */
export const DROP_INTENT = `
  WITH d AS (DELETE FROM intents WHERE id = $1 RETURNING job, kind, origin_system, origin_id)
  DELETE FROM import_claims c USING d
  WHERE d.origin_system <> 'tinypm' AND c.job = d.job AND c.target_system = d.origin_system
    AND c.target_id = d.origin_id
    AND NOT EXISTS (SELECT 1 FROM links l
      WHERE l.job = d.job AND l.kind = d.kind AND l.target_id = d.origin_id)`;

/** Import claims on PostgreSQL: the rules of claim-table.ts. */
export function pgClaims(db: Db, now: () => Date) {
  return {
    async claimImport(i: IntentDraft, location: string): Promise<ImportClaimResult> {
      const { rows } = await db.query<{ owner: string | null; intent_id: number | null }>(CLAIM, [
        ...[i.originSystem, location, i.originId, i.job, i.kind, now().toISOString()],
        ...[i.targetSystem, i.payloadHash, i.anchor ?? null],
      ]);
      const row = rows[0];
      if (row?.owner !== i.job) return { claimedBy: row?.owner ?? "?" };
      return { intentId: row.intent_id ?? 0 };
    },
    async importClaims(
      targetSystem: SystemName,
      location: string,
      targetIds: readonly string[],
    ): Promise<ReadonlyMap<string, string>> {
      if (targetIds.length === 0) return new Map();
      const { rows } = await db.query<{ target_id: string; job: string }>(
        `SELECT target_id, job FROM import_claims WHERE target_system = $1 AND location = $2
           AND target_id = ANY($3::text[])`,
        [targetSystem, location, [...targetIds]],
      );
      return new Map(rows.map((r) => [r.target_id, r.job]));
    },
    async claimsOf(job: string): Promise<ClaimRecord[]> {
      const { rows } = await db.query<ClaimRow>(CLAIMS_OF_SQL("$1"), [job]);
      return rows.map(toClaim);
    },
  };
}
