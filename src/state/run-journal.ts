import { randomBytes } from "node:crypto";
import type { Database } from "better-sqlite3";
import { InternalError } from "../core/errors.js";
import type { Checkpoint } from "../core/tracker.js";
import type { CheckpointWrite } from "./store.js";
import type { RunMode, RunOutcome, RunRecord, RunResult } from "./records.js";
import { opt, parseJson } from "./records.js";
import { noRunError } from "./state-errors.js";

/** A `runs` row, as both backends store it. */
export interface RunRow {
  id: string;
  job: string;
  mode: RunMode;
  pid: number;
  host: string | null;
  worker_id: string | null;
  started_at: string;
  finished_at: string | null;
  outcome: RunOutcome | null;
  counts: string;
  api_calls: string;
}

/** Keys that name a secret: refused in checkpoints, which adapters fill with opaque values. */
const SECRET_KEY = /token|secret|password|authorization|api[-_]?key/i;

export function toRun(r: RunRow): RunRecord {
  return {
    id: r.id,
    job: r.job,
    mode: r.mode,
    pid: r.pid,
    ...(r.host === null ? {} : { host: r.host }),
    ...(r.worker_id === null ? {} : { workerId: r.worker_id }),
    startedAt: r.started_at,
    finishedAt: opt(r.finished_at),
    outcome: r.outcome ?? "running",
    counts: parseJson(r.counts),
    apiCalls: parseJson(r.api_calls),
  };
}

let lastMs = Number.NaN;
let sameMs = 0;

/**
 * A sortable, unique run id: `20261121T061118Z-003f9a1c`. The suffix starts with a count of the
 * runs this process started in the same millisecond, so that runs with one start time list in
 * the order they were started on every backend (and in a copy between them), then 6 random
 * hex digits.
 */
export function newRunId(at: Date): string {
  const ms = at.getTime();
  sameMs = ms === lastMs ? sameMs + 1 : 0;
  lastMs = ms;
  const stamp = at.toISOString().replace(/[-:]/g, "").replace(/\.\d+/, "");
  const order = Math.min(sameMs, 255).toString(16).padStart(2, "0");
  return `${stamp}-${order}${randomBytes(3).toString("hex")}`;
}

/** Refuses a checkpoint with a secret-like key: secrets never enter the state. */
export function checkCheckpoint(job: string, system: string, cp: Checkpoint): void {
  const secret = Object.keys(cp).find((key) => SECRET_KEY.test(key));
  if (secret !== undefined) {
    throw new InternalError(`Checkpoint of ${job}/${system} carries a secret-like key ${secret}.`, {
      hint: "Secrets never enter the state: keep tokens out of checkpoints (a bug in the adapter).",
    });
  }
}

/** Builds checkpoint and run operations on an open, migrated database. */
/** The process a run journal writes for: its host and worker id. */
export interface RunWorker {
  readonly host: string;
  readonly id: string;
}

export function createRunJournal(db: Database, now: () => Date, worker: RunWorker) {
  const stamp = (): string => now().toISOString();
  const putCheckpoint = db.prepare<[string, string, string, string]>(
    `INSERT INTO checkpoints (job, system, data, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (job, system) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
  );
  return {
    getCheckpoint(job: string, system: string): Checkpoint | undefined {
      const row = db
        .prepare<[string, string], { data: string }>(
          "SELECT data FROM checkpoints WHERE job = ? AND system = ?",
        )
        .get(job, system);
      return row === undefined ? undefined : parseJson<Checkpoint>(row.data);
    },
    setCheckpoint(job: string, system: string, cp: Checkpoint, options?: CheckpointWrite): void {
      checkCheckpoint(job, system, cp);
      const write = (): void => {
        putCheckpoint.run(job, system, JSON.stringify(cp), stamp());
      };
      // In a transaction the commit is the transaction's; alone, WAL with synchronous = NORMAL
      // survives a killed process and skips the fsync that blocks the thread (about a
      // millisecond per commit: a migration noting each create for `undo` paid it per item).
      if (options?.syncToDisk !== false || db.inTransaction) {
        write();
        return;
      }
      db.pragma("synchronous = NORMAL");
      try {
        write();
      } finally {
        db.pragma("synchronous = FULL");
      }
    },
    startRun(job: string, mode: RunMode): string {
      const at = now();
      const id = newRunId(at);
      db.prepare(
        `INSERT INTO runs (id, job, mode, pid, host, worker_id, started_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(...[id, job, mode, process.pid, worker.host, worker.id, at.toISOString()]);
      return id;
    },
    finishRun(runId: string, result: RunResult): void {
      const { changes } = db
        .prepare(
          "UPDATE runs SET finished_at = ?, outcome = ?, counts = ?, api_calls = ? WHERE id = ?",
        )
        .run(
          stamp(),
          result.outcome,
          JSON.stringify(result.counts),
          JSON.stringify(result.apiCalls),
          runId,
        );
      if (changes === 0) throw noRunError(runId);
    },
    runs(opts: { job?: string; limit?: number } = {}): RunRecord[] {
      return db
        .prepare<[{ job: string | null; limit: number }], RunRow>(
          `SELECT * FROM runs WHERE (@job IS NULL OR job = @job)
           ORDER BY started_at DESC, id DESC LIMIT @limit`,
        )
        .all({ job: opts.job ?? null, limit: opts.limit ?? -1 })
        .map(toRun);
    },
    /**
     * Marks this process's runs that are still open as interrupted (the process is about to exit
     * on a signal before its run could finish); returns how many.
     */
    interruptOwnRuns(): number {
      return db
        .prepare(
          "UPDATE runs SET outcome = 'interrupted', finished_at = ? WHERE outcome IS NULL AND pid = ?",
        )
        .run(stamp(), process.pid).changes;
    },
    /** Marks runs left `running` by a crashed process as interrupted; returns how many. */
    closeAbandonedRuns(): number {
      return db
        .prepare("UPDATE runs SET outcome = 'interrupted', finished_at = ? WHERE outcome IS NULL")
        .run(stamp()).changes;
    },
  };
}
