import type { Database } from "better-sqlite3";
import type { SystemName } from "../core/model.js";
import type { ClaimRecord, ImportClaimResult, IntentDraft } from "./records.js";

/*
 * Import claims: a target item without a marker (an issue a person opened on a repository or
 * Jira project several jobs share) is imported by the one job whose claim is recorded first.
 * The claim is keyed by the target system, the target's location (repository, Jira site and
 * project) and the item's id, and written in the same transaction as the import's intent; it is
 * released when that intent is dropped (the create never happened) and kept once the link exists.
 */

/** The SQL that releases the claim of a dropped import intent (before the intent row goes). */
export const RELEASE_SQL = `
  DELETE FROM import_claims WHERE (job, target_system, target_id) IN (
    SELECT i.job, i.origin_system, i.origin_id FROM intents i WHERE i.id = ?
      AND i.origin_system <> 'tinypm'
      AND NOT EXISTS (SELECT 1 FROM links l
        WHERE l.job = i.job AND l.kind = i.kind AND l.target_id = i.origin_id))`;

/** A job's claims with what became of each (both backends: booleans come back as 0/1 or t/f). */
export const CLAIMS_OF_SQL = (param: string): string => `
  SELECT c.target_system, c.location, c.target_id, c.kind, c.claimed_at,
    EXISTS (SELECT 1 FROM links l
      WHERE l.job = c.job AND l.kind = c.kind AND l.target_id = c.target_id) AS linked,
    EXISTS (SELECT 1 FROM intents i
      WHERE i.job = c.job AND i.kind = c.kind AND i.origin_system = c.target_system
        AND i.origin_id = c.target_id) AS pending
  FROM import_claims c WHERE c.job = ${param}
  ORDER BY c.claimed_at, c.target_system, c.location, c.target_id`;

export interface ClaimRow {
  target_system: string;
  location: string;
  target_id: string;
  kind: string;
  claimed_at: string;
  linked: number | boolean;
  pending: number | boolean;
}

export function toClaim(r: ClaimRow): ClaimRecord {
  return {
    targetSystem: r.target_system as ClaimRecord["targetSystem"],
    location: r.location,
    targetId: r.target_id,
    kind: r.kind as ClaimRecord["kind"],
    claimedAt: r.claimed_at,
    status:
      r.linked === true || r.linked === 1
        ? "imported"
        : r.pending === true || r.pending === 1
          ? "importing"
          : "unlinked",
  };
}

/** Builds the claim operations of an SQLite state (open, migrated). */
export function createClaimTable(db: Database, now: () => Date) {
  const claim = db.prepare<unknown[], { job: string }>(
    `INSERT INTO import_claims (target_system, location, target_id, job, kind, claimed_at)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (target_system, location, target_id) DO UPDATE SET job = job
     RETURNING job`,
  );
  const intent = db.prepare<unknown[], { id: number }>(
    `INSERT INTO intents (job, kind, origin_system, origin_id, target_system, payload_hash, created_at,
       anchor)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (job, kind, origin_system, origin_id, target_system)
     DO UPDATE SET payload_hash = excluded.payload_hash, anchor = excluded.anchor RETURNING id`,
  );
  const owners = db.prepare<[string, string, string], { target_id: string; job: string }>(
    `SELECT target_id, job FROM import_claims WHERE target_system = ? AND location = ?
       AND target_id IN (SELECT value FROM json_each(?))`,
  );
  const held = db.prepare<[string], ClaimRow>(CLAIMS_OF_SQL("?"));
  const take = (i: IntentDraft, location: string): ImportClaimResult => {
    const at = now().toISOString();
    const owner = claim.get(i.originSystem, location, i.originId, i.job, i.kind, at)?.job;
    if (owner !== i.job) return { claimedBy: owner ?? "?" };
    const row = intent.get(
      ...[i.job, i.kind, i.originSystem, i.originId, i.targetSystem, i.payloadHash, at],
      i.anchor ?? null,
    );
    return { intentId: row?.id ?? 0 };
  };
  return {
    claimImport(i: IntentDraft, location: string): ImportClaimResult {
      return db.inTransaction ? take(i, location) : db.transaction(take)(i, location);
    },
    importClaims(
      targetSystem: SystemName,
      location: string,
      targetIds: readonly string[],
    ): ReadonlyMap<string, string> {
      if (targetIds.length === 0) return new Map();
      const rows = owners.all(targetSystem, location, JSON.stringify(targetIds));
      return new Map(rows.map((r) => [r.target_id, r.job]));
    },
    claimsOf(job: string): ClaimRecord[] {
      return held.all(job).map(toClaim);
    },
  };
}
