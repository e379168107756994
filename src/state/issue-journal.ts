import type { Database } from "better-sqlite3";
import type { ItemKind } from "../core/model.js";
import type {
  ConflictDraft,
  ConflictRecord,
  FailureDraft,
  FailureRecord,
  FailureSide,
} from "./records.js";
import { opt, parseJson } from "./records.js";
import {
  conflictAppliedError,
  conflictResolvedError,
  failureWithoutItemError,
  noConflictError,
} from "./state-errors.js";

/** A `failures` row, as both backends store it. */
export interface FailureRow {
  id: number;
  run_id: string;
  job: string;
  kind: ItemKind;
  tinypm_id: string | null;
  target_id: string | null;
  side: FailureSide;
  code: string;
  message: string;
  attempts: number;
  first_seen_at: string;
  last_seen_at: string;
}

/** A `conflicts` row, as both backends store it. */
/** `conflicts resolve` with the other side on a conflict resolved already (both backends). */
export function resolvedConflictError(row: ConflictRow, take: "tinypm" | "target"): Error {
  return conflictResolvedError({
    id: row.id,
    job: row.job,
    kind: row.kind,
    tinypmId: row.tinypm_id,
    field: row.field,
    resolution: row.resolution,
    resolvedAt: row.resolved_at,
    take,
  });
}

export interface ConflictRow {
  id: number;
  job: string;
  kind: ItemKind;
  tinypm_id: string;
  target_id: string;
  field: string;
  base_value: string;
  tinypm_value: string;
  target_value: string;
  status: "open" | "resolved";
  resolution: "tinypm" | "target" | null;
  created_at: string;
  updated_at: string;
  resolved_at: string | null;
  applied_at: string | null;
}

interface FailureKey {
  job: string;
  kind: string;
  tinypmId: string | null;
  targetId: string | null;
}

export function toFailure(r: FailureRow): FailureRecord {
  return {
    id: r.id,
    runId: r.run_id,
    job: r.job,
    kind: r.kind,
    ...(r.tinypm_id === null ? {} : { tinypmId: r.tinypm_id }),
    ...(r.target_id === null ? {} : { targetId: r.target_id }),
    side: r.side,
    code: r.code,
    message: r.message,
    attempts: r.attempts,
    firstSeenAt: r.first_seen_at,
    lastSeenAt: r.last_seen_at,
  };
}

export function toConflict(r: ConflictRow): ConflictRecord {
  return {
    id: r.id,
    job: r.job,
    kind: r.kind,
    tinypmId: r.tinypm_id,
    targetId: r.target_id,
    field: r.field,
    baseValue: parseJson(r.base_value),
    tinypmValue: parseJson(r.tinypm_value),
    targetValue: parseJson(r.target_value),
    status: r.status,
    resolution: opt(r.resolution),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    resolvedAt: opt(r.resolved_at),
    appliedAt: opt(r.applied_at),
  };
}

/** Builds parked-failure and conflict operations on an open, migrated database. */
export function createIssueJournal(db: Database, now: () => Date) {
  const stamp = (): string => now().toISOString();
  const findFailure = db.prepare<[FailureKey], { id: number }>(
    `SELECT id FROM failures WHERE job = @job AND kind = @kind AND
       ((@tinypmId IS NOT NULL AND tinypm_id = @tinypmId) OR
        (@targetId IS NOT NULL AND target_id = @targetId)) LIMIT 1`,
  );
  const getConflict = db.prepare<[number], ConflictRow>("SELECT * FROM conflicts WHERE id = ?");
  const conflictOrThrow = (id: number): ConflictRow => {
    const row = getConflict.get(id);
    if (row !== undefined) return row;
    throw noConflictError(id);
  };
  /** A decision taken (the same side again changes nothing; the other side needs `reopen`). */
  const resolveRow = (id: number, take: "tinypm" | "target", reopen: boolean): ConflictRecord => {
    const row = conflictOrThrow(id);
    if (row.applied_at !== null) {
      throw conflictAppliedError(id, row.resolution);
    }
    if (row.status === "resolved" && row.resolution === take) return toConflict(row);
    if (row.status === "resolved" && !reopen) throw resolvedConflictError(row, take);
    db.prepare(
      "UPDATE conflicts SET status = 'resolved', resolution = ?, resolved_at = ?, updated_at = ? WHERE id = ?",
    ).run(take, stamp(), stamp(), id);
    return toConflict(conflictOrThrow(id));
  };
  return {
    parkFailure: db.transaction((f: FailureDraft): void => {
      const tinypmId = f.tinypmId ?? null;
      const targetId = f.targetId ?? null;
      if (tinypmId === null && targetId === null) {
        throw failureWithoutItemError(f);
      }
      const found = findFailure.get({ job: f.job, kind: f.kind, tinypmId, targetId });
      if (found === undefined) {
        db.prepare(
          `INSERT INTO failures (run_id, job, kind, tinypm_id, target_id, side, code, message,
             attempts, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
        ).run(
          f.runId,
          f.job,
          f.kind,
          tinypmId,
          targetId,
          f.side,
          f.code,
          f.message,
          stamp(),
          stamp(),
        );
        return;
      }
      db.prepare(
        `UPDATE failures SET run_id = ?, tinypm_id = coalesce(?, tinypm_id),
           target_id = coalesce(?, target_id), side = ?, code = ?, message = ?,
           attempts = attempts + 1, last_seen_at = ? WHERE id = ?`,
      ).run(f.runId, tinypmId, targetId, f.side, f.code, f.message, stamp(), found.id);
    }) as (f: FailureDraft) => void,
    failures(job?: string): FailureRecord[] {
      return db
        .prepare<[{ job: string | null }], FailureRow>(
          "SELECT * FROM failures WHERE (@job IS NULL OR job = @job) ORDER BY id",
        )
        .all({ job: job ?? null })
        .map(toFailure);
    },
    clearFailure(job: string, kind: ItemKind, id: string): void {
      db.prepare(
        "DELETE FROM failures WHERE job = @job AND kind = @kind AND (tinypm_id = @id OR target_id = @id)",
      ).run({ job, kind, id });
    },
    openConflict(c: ConflictDraft): number {
      const values = [c.baseValue, c.tinypmValue, c.targetValue].map((v) => JSON.stringify(v));
      const row = db
        .prepare<unknown[], { id: number }>(
          `INSERT INTO conflicts (job, kind, tinypm_id, target_id, field, base_value, tinypm_value,
             target_value, status, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?)
           ON CONFLICT (job, kind, tinypm_id, field) WHERE status = 'open' DO UPDATE SET
             target_id = excluded.target_id, base_value = excluded.base_value,
             tinypm_value = excluded.tinypm_value, target_value = excluded.target_value,
             updated_at = excluded.updated_at
           RETURNING id`,
        )
        .get(c.job, c.kind, c.tinypmId, c.targetId, c.field, ...values, stamp(), stamp());
      return row?.id ?? 0;
    },
    conflicts(opts: { job?: string; status?: "open" | "resolved" } = {}): ConflictRecord[] {
      return db
        .prepare<[{ job: string | null; status: string | null }], ConflictRow>(
          `SELECT * FROM conflicts WHERE (@job IS NULL OR job = @job)
             AND (@status IS NULL OR status = @status) ORDER BY id`,
        )
        .all({ job: opts.job ?? null, status: opts.status ?? null })
        .map(toConflict);
    },
    resolveConflict: db.transaction(
      (id: number, take: "tinypm" | "target", reopen?: boolean): ConflictRecord =>
        resolveRow(id, take, reopen === true),
    ) as (id: number, take: "tinypm" | "target", reopen?: boolean) => ConflictRecord,
    markConflictApplied(id: number): void {
      conflictOrThrow(id);
      db.prepare("UPDATE conflicts SET applied_at = ? WHERE id = ? AND status = 'resolved'").run(
        stamp(),
        id,
      );
    },
    settleConflict(id: number): void {
      const at = stamp();
      db.prepare(
        `UPDATE conflicts SET status = 'resolved', resolution = NULL, resolved_at = ?,
           applied_at = ?, updated_at = ? WHERE id = ? AND status = 'open'`,
      ).run(at, at, at, id);
    },
  };
}
