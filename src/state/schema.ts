import type { Database } from "better-sqlite3";

/**
 * One schema step. `up` runs inside the same transaction that bumps `PRAGMA user_version`, so a
 * crash during a migration leaves the file at the previous version, never half-migrated.
 */
export interface Migration {
  /** The `user_version` the file has after this step. */
  readonly version: number;
  /** What the step does, for docs/state.md and error messages. */
  readonly description: string;
  /** SQL run in one transaction. */
  readonly up: string;
}

/** `PRAGMA application_id` of a tinypm-sync state file ("tpms" in ASCII). */
export const APPLICATION_ID = 0x74706d73;

/**
 * The migrations, oldest first. Append only: a released step is never edited, a change is a new
 * step. The newest version is the one this build writes.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "links with base snapshots, checkpoints, intents, runs",
    up: `
      CREATE TABLE links (
        job TEXT NOT NULL,
        kind TEXT NOT NULL,
        tinypm_id TEXT NOT NULL,
        target_system TEXT NOT NULL,
        target_id TEXT NOT NULL,
        origin TEXT NOT NULL,
        parent_tinypm_id TEXT,
        base_tinypm TEXT NOT NULL,
        base_target TEXT NOT NULL,
        tinypm_hash TEXT NOT NULL,
        target_hash TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (job, kind, tinypm_id)
      ) WITHOUT ROWID;
      CREATE UNIQUE INDEX links_by_target ON links (job, kind, target_id);
      CREATE TABLE checkpoints (
        job TEXT NOT NULL,
        system TEXT NOT NULL,
        data TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (job, system)
      ) WITHOUT ROWID;
      CREATE TABLE intents (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        job TEXT NOT NULL,
        kind TEXT NOT NULL,
        origin_system TEXT NOT NULL,
        origin_id TEXT NOT NULL,
        target_system TEXT NOT NULL,
        payload_hash TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE UNIQUE INDEX intents_by_origin
        ON intents (job, kind, origin_system, origin_id, target_system);
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        job TEXT NOT NULL,
        mode TEXT NOT NULL,
        pid INTEGER NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        outcome TEXT,
        counts TEXT NOT NULL DEFAULT '{}',
        api_calls TEXT NOT NULL DEFAULT '{}'
      );
      CREATE INDEX runs_by_job ON runs (job, started_at);
    `,
  },
  {
    version: 2,
    description: "parked failures and field conflicts",
    up: `
      CREATE TABLE failures (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL,
        job TEXT NOT NULL,
        kind TEXT NOT NULL,
        tinypm_id TEXT,
        target_id TEXT,
        side TEXT NOT NULL,
        code TEXT NOT NULL,
        message TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        first_seen_at TEXT NOT NULL,
        last_seen_at TEXT NOT NULL
      );
      CREATE INDEX failures_by_tinypm ON failures (job, kind, tinypm_id);
      CREATE INDEX failures_by_target ON failures (job, kind, target_id);
      CREATE TABLE conflicts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        job TEXT NOT NULL,
        kind TEXT NOT NULL,
        tinypm_id TEXT NOT NULL,
        target_id TEXT NOT NULL,
        field TEXT NOT NULL,
        base_value TEXT NOT NULL,
        tinypm_value TEXT NOT NULL,
        target_value TEXT NOT NULL,
        status TEXT NOT NULL,
        resolution TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        resolved_at TEXT,
        applied_at TEXT
      );
      CREATE UNIQUE INDEX conflicts_open_by_field
        ON conflicts (job, kind, tinypm_id, field) WHERE status = 'open';
      CREATE INDEX conflicts_by_status ON conflicts (status, job);
    `,
  },
  {
    version: 3,
    description: "the marker and metadata last written into each linked target item",
    up: `
      CREATE TABLE link_identity (
        job TEXT NOT NULL,
        kind TEXT NOT NULL,
        tinypm_id TEXT NOT NULL,
        marker TEXT NOT NULL,
        meta TEXT NOT NULL,
        PRIMARY KEY (job, kind, tinypm_id)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 4,
    description: "the field writes of each link sent but not yet followed by their base update",
    up: `ALTER TABLE links ADD COLUMN pending_writes TEXT;`,
  },
  {
    version: 5,
    description:
      "import claims (one job imports a target item shared by several), the host and worker of each run",
    up: `
      CREATE TABLE import_claims (
        target_system TEXT NOT NULL,
        location TEXT NOT NULL,
        target_id TEXT NOT NULL,
        job TEXT NOT NULL,
        kind TEXT NOT NULL,
        claimed_at TEXT NOT NULL,
        PRIMARY KEY (target_system, location, target_id)
      ) WITHOUT ROWID;
      CREATE INDEX import_claims_by_job ON import_claims (job, target_system, target_id);
      ALTER TABLE runs ADD COLUMN host TEXT;
      ALTER TABLE runs ADD COLUMN worker_id TEXT;
    `,
  },
  {
    version: 6,
    description: "run requests (deliveries that came while another worker held the job)",
    up: `
      CREATE TABLE run_requests (
        job TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        deliveries INTEGER NOT NULL,
        triggers TEXT NOT NULL,
        first_at TEXT NOT NULL,
        last_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 7,
    description: "what identifies a create's copy where no marker can be written (tinyPM)",
    up: `ALTER TABLE intents ADD COLUMN anchor TEXT;`,
  },
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings `db` from its current `user_version` up to `target` (default: the newest), one
 * transaction per step. Returns the versions applied. The caller has checked that the file is
 * not newer than this build and holds the state lock.
 */
export function migrate(db: Database, target: number = SCHEMA_VERSION): number[] {
  const applied: number[] = [];
  for (const step of MIGRATIONS) {
    const current = db.pragma("user_version", { simple: true }) as number;
    if (step.version <= current || step.version > target) continue;
    db.transaction(() => {
      db.exec(step.up);
      db.pragma(`user_version = ${step.version}`);
      db.pragma(`application_id = ${APPLICATION_ID}`);
    }).immediate();
    applied.push(step.version);
  }
  return applied;
}
