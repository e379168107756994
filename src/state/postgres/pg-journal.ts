import type { ItemKind } from "../../core/model.js";
import type { Checkpoint } from "../../core/tracker.js";
import {
  resolvedConflictError,
  toConflict,
  toFailure,
  type ConflictRow,
  type FailureRow,
} from "../issue-journal.js";
import type {
  ConflictDraft,
  ConflictRecord,
  FailureDraft,
  FailureRecord,
  RunMode,
  RunRecord,
  RunResult,
} from "../records.js";
import { parseJson } from "../records.js";
import { checkCheckpoint, newRunId, toRun, type RunRow, type RunWorker } from "../run-journal.js";
import {
  conflictAppliedError,
  failureWithoutItemError,
  noConflictError,
  noRunError,
} from "../state-errors.js";
import type { Db } from "./pg-db.js";

async function conflictOrThrow(db: Db, id: number, lock = false): Promise<ConflictRow> {
  const { rows } = await db.query<ConflictRow>(
    `SELECT * FROM conflicts WHERE id = $1${lock ? " FOR UPDATE" : ""}`,
    [id],
  );
  if (rows[0] === undefined) throw noConflictError(id);
  return rows[0];
}

/** Checkpoints, runs, parked failures and conflicts on PostgreSQL: the rules of SQLite's journals. */
export function pgJournal(db: Db, now: () => Date, worker: RunWorker) {
  const stamp = (): string => now().toISOString();
  return {
    async getCheckpoint(job: string, system: string): Promise<Checkpoint | undefined> {
      const { rows } = await db.query<{ data: string }>(
        "SELECT data FROM checkpoints WHERE job = $1 AND system = $2",
        [job, system],
      );
      return rows[0] === undefined ? undefined : parseJson<Checkpoint>(rows[0].data);
    },
    // PostgreSQL commits every checkpoint alike (`CheckpointWrite` is for SQLite's fsync).
    async setCheckpoint(job: string, system: string, cp: Checkpoint): Promise<void> {
      checkCheckpoint(job, system, cp);
      await db.query(
        `INSERT INTO checkpoints (job, system, data, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (job, system) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
        [job, system, JSON.stringify(cp), stamp()],
      );
    },
    async startRun(job: string, mode: RunMode): Promise<string> {
      const at = now();
      const id = newRunId(at);
      await db.query(
        `INSERT INTO runs (id, job, mode, pid, host, worker_id, started_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [id, job, mode, process.pid, worker.host, worker.id, at.toISOString()],
      );
      return id;
    },
    async finishRun(runId: string, result: RunResult): Promise<void> {
      const { rowCount } = await db.query(
        "UPDATE runs SET finished_at = $1, outcome = $2, counts = $3, api_calls = $4 WHERE id = $5",
        [
          ...[stamp(), result.outcome, JSON.stringify(result.counts)],
          ...[JSON.stringify(result.apiCalls), runId],
        ],
      );
      if (rowCount === 0) throw noRunError(runId);
    },
    async runs(opts: { job?: string; limit?: number } = {}): Promise<RunRecord[]> {
      const { rows } = await db.query<RunRow>(
        `SELECT * FROM runs WHERE ($1::text IS NULL OR job = $1)
         ORDER BY started_at DESC, id COLLATE "C" DESC LIMIT $2`,
        [opts.job ?? null, opts.limit ?? null],
      );
      return rows.map(toRun);
    },
    parkFailure: (f: FailureDraft): Promise<void> =>
      db.atomic(async (tx) => {
        const tinypmId = f.tinypmId ?? null;
        const targetId = f.targetId ?? null;
        if (tinypmId === null && targetId === null) throw failureWithoutItemError(f);
        const { rows } = await tx.query<{ id: number }>(
          `SELECT id FROM failures WHERE job = $1 AND kind = $2 AND
             (($3::text IS NOT NULL AND tinypm_id = $3) OR ($4::text IS NOT NULL AND target_id = $4))
           ORDER BY id LIMIT 1 FOR UPDATE`,
          [f.job, f.kind, tinypmId, targetId],
        );
        const found = rows[0];
        if (found === undefined) {
          await tx.query(
            `INSERT INTO failures (run_id, job, kind, tinypm_id, target_id, side, code, message,
               attempts, first_seen_at, last_seen_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9, $9)`,
            [f.runId, f.job, f.kind, tinypmId, targetId, f.side, f.code, f.message, stamp()],
          );
          return;
        }
        await tx.query(
          `UPDATE failures SET run_id = $1, tinypm_id = coalesce($2, tinypm_id),
             target_id = coalesce($3, target_id), side = $4, code = $5, message = $6,
             attempts = attempts + 1, last_seen_at = $7 WHERE id = $8`,
          [f.runId, tinypmId, targetId, f.side, f.code, f.message, stamp(), found.id],
        );
      }),
    async failures(job?: string): Promise<FailureRecord[]> {
      const { rows } = await db.query<FailureRow>(
        "SELECT * FROM failures WHERE ($1::text IS NULL OR job = $1) ORDER BY id",
        [job ?? null],
      );
      return rows.map(toFailure);
    },
    async clearFailure(job: string, kind: ItemKind, id: string): Promise<void> {
      await db.query(
        "DELETE FROM failures WHERE job = $1 AND kind = $2 AND (tinypm_id = $3 OR target_id = $3)",
        [job, kind, id],
      );
    },
    async openConflict(c: ConflictDraft): Promise<number> {
      const values = [c.baseValue, c.tinypmValue, c.targetValue].map((v) => JSON.stringify(v));
      const { rows } = await db.query<{ id: number }>(
        `INSERT INTO conflicts (job, kind, tinypm_id, target_id, field, base_value, tinypm_value,
           target_value, status, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'open', $9, $9)
         ON CONFLICT (job, kind, tinypm_id, field) WHERE status = 'open' DO UPDATE SET
           target_id = excluded.target_id, base_value = excluded.base_value,
           tinypm_value = excluded.tinypm_value, target_value = excluded.target_value,
           updated_at = excluded.updated_at
         RETURNING id`,
        [c.job, c.kind, c.tinypmId, c.targetId, c.field, ...values, stamp()],
      );
      return rows[0]?.id ?? 0;
    },
    async conflicts(opts: { job?: string; status?: "open" | "resolved" } = {}) {
      const { rows } = await db.query<ConflictRow>(
        `SELECT * FROM conflicts WHERE ($1::text IS NULL OR job = $1)
           AND ($2::text IS NULL OR status = $2) ORDER BY id`,
        [opts.job ?? null, opts.status ?? null],
      );
      return rows.map(toConflict);
    },
    resolveConflict: (
      id: number,
      take: "tinypm" | "target",
      reopen = false,
    ): Promise<ConflictRecord> =>
      db.atomic(async (tx) => {
        const row = await conflictOrThrow(tx, id, true);
        if (row.applied_at !== null) throw conflictAppliedError(id, row.resolution);
        // The same side again changes nothing; the other side needs `reopen` (a change of mind).
        if (row.status === "resolved" && row.resolution === take) return toConflict(row);
        if (row.status === "resolved" && !reopen) throw resolvedConflictError(row, take);
        await tx.query(
          `UPDATE conflicts SET status = 'resolved', resolution = $1, resolved_at = $2,
             updated_at = $2 WHERE id = $3`,
          [take, stamp(), id],
        );
        return toConflict(await conflictOrThrow(tx, id));
      }),
    async markConflictApplied(id: number): Promise<void> {
      await conflictOrThrow(db, id);
      await db.query("UPDATE conflicts SET applied_at = $1 WHERE id = $2 AND status = 'resolved'", [
        stamp(),
        id,
      ]);
    },
    async settleConflict(id: number): Promise<void> {
      await db.query(
        `UPDATE conflicts SET status = 'resolved', resolution = NULL, resolved_at = $1,
           applied_at = $1, updated_at = $1 WHERE id = $2 AND status = 'open'`,
        [stamp(), id],
      );
    },
  };
}
