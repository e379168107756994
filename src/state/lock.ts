import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import type { Database } from "better-sqlite3";
import { StateError } from "../core/errors.js";

/** Who holds a state file: one row in `state_lock`. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** Process start time from `/proc/<pid>/stat` (Linux), to tell a reused pid apart. */
  readonly processStart: string | undefined;
  readonly acquiredAt: string;
}

/** What `acquireLock` returns: the token to release with, and the dead holder it replaced. */
export interface LockHandle {
  readonly token: string;
  readonly takenOverFrom: LockHolder | undefined;
}

export interface AcquireLockOptions {
  readonly path: string;
  /** How long to wait for a live holder to let go; 0 = fail at once. */
  readonly waitForLockMs: number;
  readonly now: () => Date;
}

const LOCK_TABLE = `
  CREATE TABLE IF NOT EXISTS state_lock (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    token TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    process_start TEXT,
    acquired_at TEXT NOT NULL
  )`;

interface LockRow {
  token: string;
  pid: number;
  host: string;
  process_start: string | null;
  acquired_at: string;
}

/** Start time and state of a process from `/proc`, or undefined where `/proc` is absent. */
function procStat(pid: number): { start: string; zombie: boolean } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name: state is field 3, starttime field 22.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = rest[19];
    return start === undefined ? undefined : { start, zombie: rest[0] === "Z" };
  } catch {
    return undefined;
  }
}

/** The start time of a process (`/proc/<pid>/stat`), to tell a reused pid apart; Linux only. */
export function processStart(pid: number): string | undefined {
  return procStat(pid)?.start;
}

/** Whether the holder may still be running. Unknown (another host, no permission) counts as alive. */
export function isHolderAlive(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
  const stat = procStat(holder.pid);
  if (stat === undefined) return true;
  if (stat.zombie) return false;
  return holder.processStart === undefined || stat.start === holder.processStart;
}

function toHolder(row: LockRow): LockHolder {
  return {
    pid: row.pid,
    host: row.host,
    processStart: row.process_start ?? undefined,
    acquiredAt: row.acquired_at,
  };
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED";
}

type Attempt =
  | { readonly ok: true; readonly takenOverFrom: LockHolder | undefined }
  | { readonly ok: false; readonly holder: LockHolder | undefined };

function tryAcquire(db: Database, token: string, now: () => Date): Attempt {
  const read = db.prepare<[], LockRow>("SELECT * FROM state_lock WHERE id = 1");
  try {
    return db
      .transaction((): Attempt => {
        const row = read.get();
        if (row !== undefined && isHolderAlive(toHolder(row))) {
          return { ok: false, holder: toHolder(row) };
        }
        db.prepare(
          `INSERT OR REPLACE INTO state_lock (id, token, pid, host, process_start, acquired_at)
           VALUES (1, ?, ?, ?, ?, ?)`,
        ).run(
          token,
          process.pid,
          hostname(),
          procStat(process.pid)?.start ?? null,
          now().toISOString(),
        );
        return { ok: true, takenOverFrom: row === undefined ? undefined : toHolder(row) };
      })
      .immediate();
  } catch (error) {
    if (!isBusy(error)) throw error;
    const row = read.get();
    return { ok: false, holder: row === undefined ? undefined : toHolder(row) };
  }
}

/**
 * The process holding the state file now, if it is alive (a lock left by a dead process, or
 * none, gives undefined). Read-only: never takes or clears the lock.
 */
export function liveLockHolder(db: Database): LockHolder | undefined {
  let row: LockRow | undefined;
  try {
    row = db.prepare<[], LockRow>("SELECT * FROM state_lock WHERE id = 1").get();
  } catch {
    return undefined; // a state file that never had a lock table has no holder
  }
  if (row === undefined) return undefined;
  const holder = toHolder(row);
  return isHolderAlive(holder) ? holder : undefined;
}

/** Blocks the thread: `openSqliteStore` is synchronous, like the rest of better-sqlite3. */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function lockedError(path: string, holder: LockHolder | undefined, waitedMs: number): StateError {
  const who =
    holder === undefined
      ? "another process (busy writing)"
      : `process ${holder.pid} on ${holder.host} (since ${holder.acquiredAt})`;
  return new StateError(
    "state_locked",
    `State file ${path} is in use by ${who}; waited ${waitedMs} ms.`,
    {
      hint:
        "Let that run finish, or set `state.waitForLockMs` in the config (e.g. 600000 to wait " +
        "up to 10 minutes). A lock left by a process that no longer runs is taken over " +
        "automatically.",
      details: { path, pid: holder?.pid, host: holder?.host, since: holder?.acquiredAt },
    },
  );
}

/**
 * Takes the single-writer lock of a state file: a row in `state_lock`, written in a
 * `BEGIN IMMEDIATE` transaction, so two processes can never both win. A row left by a process
 * that is gone (no such pid, a zombie, or a pid reused by a younger process) is taken over.
 * Throws `StateError("state_locked")` naming the holder once `waitForLockMs` has passed.
 */
export function acquireLock(db: Database, options: AcquireLockOptions): LockHandle {
  db.exec(LOCK_TABLE);
  const token = randomUUID();
  const started = Date.now();
  for (;;) {
    const attempt = tryAcquire(db, token, options.now);
    if (attempt.ok) return { token, takenOverFrom: attempt.takenOverFrom };
    const waited = Date.now() - started;
    if (waited >= options.waitForLockMs) throw lockedError(options.path, attempt.holder, waited);
    sleepSync(Math.min(50, options.waitForLockMs - waited));
  }
}

/** Gives the lock back; a no-op when it was taken over meanwhile. */
export function releaseLock(db: Database, token: string): void {
  db.prepare("DELETE FROM state_lock WHERE token = ?").run(token);
}
