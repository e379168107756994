import type { Database } from "better-sqlite3";
import type { RunRequest } from "./records.js";

/*
 * Run requests: a webhook delivery (or "Sync now") that reached a `serve` worker while another
 * worker held the job's lease. The worker records it here instead of dropping it; whoever holds or
 * next takes the job's lease runs the job once more after its current run. One row per job:
 * deliveries recorded while it waits coalesce into it (`deliveries` counts them, `version` tells a
 * request recorded after a run began from the one that run covered). Both backends use this SQL
 * (SQLite ≥ 3.35 and PostgreSQL: upsert and delete with RETURNING); `$n` placeholders become `?`.
 */

/** Records one more delivery: a new row, or the waiting request with its counts raised. */
export const REQUEST_RUN_SQL = `
  INSERT INTO run_requests (job, version, deliveries, triggers, first_at, last_at)
  VALUES ($1, 1, 1, $2, $3, $3)
  ON CONFLICT (job) DO UPDATE SET
    version = run_requests.version + 1,
    deliveries = run_requests.deliveries + 1,
    triggers = CASE WHEN (',' || run_requests.triggers || ',') LIKE ('%,' || excluded.triggers || ',%')
      THEN run_requests.triggers ELSE run_requests.triggers || ',' || excluded.triggers END,
    last_at = excluded.last_at
  RETURNING job, version, deliveries, triggers, first_at, last_at`;

/** Deletes the request a run covered, unless a delivery came after that run read it. */
export const SETTLE_SQL = `
  DELETE FROM run_requests WHERE job = $1 AND version = $2
  RETURNING job, version, deliveries, triggers, first_at, last_at`;

export const REQUESTS_SQL = `
  SELECT job, version, deliveries, triggers, first_at, last_at FROM run_requests ORDER BY first_at, job`;

export interface RunRequestRow {
  job: string;
  version: number | string;
  deliveries: number | string;
  triggers: string;
  first_at: string;
  last_at: string;
}

export function toRunRequest(r: RunRequestRow): RunRequest {
  return {
    job: r.job,
    version: Number(r.version),
    deliveries: Number(r.deliveries),
    triggers: r.triggers.split(",").filter((t) => t !== ""),
    firstAt: r.first_at,
    lastAt: r.last_at,
  };
}

/** `$1` → `@p1`: better-sqlite3 binds a parameter used twice by name. */
const sqlite = (sql: string): string => sql.replace(/\$(\d+)/g, "@p$1");

/** Builds the run-request operations of an SQLite state (open, migrated). */
export function createRunRequestTable(db: Database, now: () => Date) {
  const request = db.prepare<unknown[], RunRequestRow>(sqlite(REQUEST_RUN_SQL));
  const settle = db.prepare<unknown[], RunRequestRow>(sqlite(SETTLE_SQL));
  const all = db.prepare<[], RunRequestRow>(REQUESTS_SQL);
  return {
    requestRun(job: string, trigger: string): RunRequest {
      const row = request.get({ p1: job, p2: trigger, p3: now().toISOString() });
      if (row === undefined) throw new Error(`run request of ${job} not recorded`);
      return toRunRequest(row);
    },
    settleRunRequest(job: string, version: number): RunRequest | undefined {
      const row = settle.get({ p1: job, p2: version });
      return row === undefined ? undefined : toRunRequest(row);
    },
    runRequests(): RunRequest[] {
      return all.all().map(toRunRequest);
    },
  };
}
