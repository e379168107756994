import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { StateError } from "../core/errors.js";
import { APPLICATION_ID, SCHEMA_VERSION } from "./schema.js";

const SQLITE_MAGIC = "SQLite format 3\0";

/** How long one statement waits for another connection's write transaction (SQLite busy timeout). */
const BUSY_TIMEOUT_MS = 5_000;

function invalid(path: string, why: string, cause?: unknown): StateError {
  return new StateError("state_invalid", `State file ${path} ${why}; it was left untouched.`, {
    hint:
      "Point `state.path` in the config to the right file, or restore it from a backup. To " +
      `rebuild it instead: move ${path} away and run \`tinypm-sync sync\` (or \`migrate\`) — a ` +
      "run that finds no state rebuilds the links from the markers on both sides; check first " +
      "with `tinypm-sync plan` that it proposes no creates for items that exist.",
    details: { path },
    cause,
  });
}

/** Refuses a non-empty file that does not start with SQLite's header, before SQLite sees it. */
function checkHeader(path: string): void {
  if (!existsSync(path)) return;
  const stat = statSync(path);
  if (!stat.isFile()) throw invalid(path, "is not a file");
  if (stat.size === 0) return;
  const fd = openSync(path, "r");
  const header = Buffer.alloc(SQLITE_MAGIC.length);
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (header.toString("latin1") !== SQLITE_MAGIC) {
    throw invalid(path, "is not an SQLite database (wrong file header)");
  }
}

function checkIdentity(db: Database.Database, path: string): void {
  const appId = db.pragma("application_id", { simple: true }) as number;
  const version = db.pragma("user_version", { simple: true }) as number;
  if (appId !== 0 && appId !== APPLICATION_ID) {
    throw invalid(path, `belongs to another application (application_id ${appId})`);
  }
  if (appId === 0 && version === 0) {
    const tables = db
      .prepare<[], { name: string }>(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT IN ('state_lock')",
      )
      .all();
    if (tables.length > 0) {
      throw invalid(
        path,
        `is an SQLite database of another application (table ${tables[0]?.name})`,
      );
    }
  }
  if (version > SCHEMA_VERSION) {
    throw new StateError(
      "state_invalid",
      `State file ${path} has schema version ${version}, newer than this tinypm-sync ` +
        `understands (${SCHEMA_VERSION}); it was left untouched.`,
      {
        hint: "Upgrade tinypm-sync to the version that wrote this file (npm install tinypm-sync@latest).",
        details: { path, version, supported: SCHEMA_VERSION },
      },
    );
  }
}

function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT";
}

/**
 * Opens (or creates) a state file and checks that it is one: SQLite header, application id,
 * schema version not newer than this build. Switches to WAL. Never writes to a file it refuses.
 */
export function openDatabase(path: string): Database.Database {
  checkHeader(path);
  mkdirSync(dirname(path), { recursive: true });
  const db = connect(path, false);
  try {
    checkIdentity(db, path);
    db.pragma("journal_mode = WAL");
    // FULL: a committed intent or link survives even an OS crash or power loss, not only a
    // killed process. Writes are paced by remote rate limits, so the fsync per commit is cheap.
    db.pragma("synchronous = FULL");
    db.pragma("foreign_keys = ON");
    return db;
  } catch (error) {
    db.close();
    if (isCorruption(error)) throw invalid(path, "is corrupt or not an SQLite database", error);
    throw error;
  }
}

/**
 * Opens an existing state file for reading only: no lock, no migration, no write; readers see
 * consistent snapshots next to a running sync (WAL). The file must be at the current version.
 */
export function openDatabaseReadOnly(path: string): Database.Database {
  checkHeader(path);
  const db = connect(path, true);
  try {
    checkIdentity(db, path);
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version < SCHEMA_VERSION) {
      throw new StateError(
        "state_invalid",
        `State file ${path} has schema version ${version}; reading it needs version ${SCHEMA_VERSION}.`,
        {
          hint: "Run `tinypm-sync sync` or `migrate` once with this version: it upgrades the file.",
          details: { path, version, supported: SCHEMA_VERSION },
        },
      );
    }
    return db;
  } catch (error) {
    db.close();
    if (isCorruption(error)) throw invalid(path, "is corrupt or not an SQLite database", error);
    throw error;
  }
}

/**
 * The page cache of each connection: SQLite's own default, 2 MiB. better-sqlite3 builds SQLite
 * with 16 MiB, which a run fills and keeps — every link read once or written once passes
 * through it — so that a 16,000-item run held 16 MB more per connection (two: the run's and
 * the read-only one) for pages the OS caches anyway.
 */
const CACHE_SIZE = -2048;

function connect(path: string, readonly: boolean): Database.Database {
  try {
    const db = new Database(path, { timeout: BUSY_TIMEOUT_MS, readonly, fileMustExist: readonly });
    db.pragma(`cache_size = ${CACHE_SIZE}`);
    return db;
  } catch (error) {
    throw new StateError(
      "state_invalid",
      `State file ${path} cannot be opened (${(error as Error).message}).`,
      {
        hint: "Check that the directory exists and is writable, or set `state.path` in the config.",
        details: { path },
        cause: error,
      },
    );
  }
}

/** Maps SQLite's corruption errors met later (a damaged page) to `state_invalid`. */
export function asStateError(path: string, error: unknown): unknown {
  return isCorruption(error) ? invalid(path, "is corrupt", error) : error;
}
