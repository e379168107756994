import { chmodSync, existsSync } from "node:fs";
import BetterSqlite3 from "better-sqlite3";
import type { Database } from "better-sqlite3";
import type { ItemKind, SystemName } from "../core/model.js";
import type { Checkpoint } from "../core/tracker.js";
import type { CheckpointWrite } from "./store.js";
import { hostname } from "node:os";
import { processWorkerId } from "../core/worker-id.js";
import { createClaimTable } from "./claim-table.js";
import { createRunRequestTable } from "./run-request-table.js";
import { createIssueJournal } from "./issue-journal.js";
import { createRunJournal } from "./run-journal.js";
import { createIdentityTable, type LinkIdentity } from "./identity-table.js";
import { createLinkTable } from "./link-table.js";
import type { LockHolder } from "./lock.js";
import { acquireLock, liveLockHolder, releaseLock } from "./lock.js";
import { asStateError, openDatabase, openDatabaseReadOnly } from "./open-database.js";
import type {
  BaseSnapshot,
  PendingWrite,
  ConflictDraft,
  ConflictRecord,
  FailureDraft,
  FailureRecord,
  ClaimRecord,
  RunRequest,
  ImportClaimResult,
  IntentDraft,
  IntentRecord,
  LinkRecord,
  RunMode,
  RunRecord,
  RunResult,
} from "./records.js";
import { migrate } from "./schema.js";
import { createSqliteTables } from "./sqlite-tables.js";
import type { StateTables } from "./tables.js";

export type * from "./records.js";
export type { LinkIdentity } from "./identity-table.js";

/** Options of `openSqliteStore`. */
export interface SqliteStoreOptions {
  /** The state file; created (mode 0600) with its directory's permissions if missing. */
  readonly path: string;
  /**
   * How long to wait for another process that holds the file, in ms, before failing with
   * `StateError("state_locked")`. The wait blocks the thread (the store is synchronous, like
   * better-sqlite3), so a CLI gives it only before starting other work.
   * @default 0 (fail at once)
   */
  readonly waitForLockMs?: number | undefined;
  /**
   * Read without taking the lock (`status`, `conflicts list`, `plan` next to a running sync).
   * Every write method then throws; a missing file reads as an empty state and is not created.
   * @default false
   */
  readonly readOnly?: boolean | undefined;
  /** The clock for every stored timestamp. @default () => new Date() */
  readonly now?: (() => Date) | undefined;
}

/**
 * The persistent state of tinypm-sync: links with base snapshots, checkpoints, create intents,
 * runs, parked failures and conflicts. One process at a time holds a state file (a lock row in
 * the file); every method is synchronous and each write is one transaction.
 */
export interface SqliteStore {
  readonly path: string;
  /** The dead process whose lock this store took over, if any (for a warning). */
  readonly tookOverLockFrom: LockHolder | undefined;
  getLinkByTinypm(job: string, kind: ItemKind, tinypmId: string): LinkRecord | undefined;
  getLinkByTarget(job: string, kind: ItemKind, targetId: string): LinkRecord | undefined;
  /** Streams a job's links page by page (ordered by kind, tinyPM id); writing meanwhile is fine. */
  links(job: string, kind?: ItemKind): IterableIterator<LinkRecord>;
  countLinks(job: string): number;
  /** A job's links by kind (`story`, `task`); kinds without links are absent. */
  countLinksByKind(job: string): Partial<Record<ItemKind, number>>;
  /** Inserts or replaces the link of `(job, kind, tinypmId)`; a target id links to one item only. */
  putLink(link: LinkRecord): void;
  /** Replaces the base snapshot after a sync of the pair; the link must exist. */
  updateBase(job: string, kind: ItemKind, tinypmId: string, base: BaseSnapshot): void;
  /** Records the field writes about to be sent to a linked pair (see store.ts). */
  recordPendingWrites(
    job: string,
    kind: ItemKind,
    tinypmId: string,
    writes: readonly PendingWrite[],
  ): void;
  deleteLink(job: string, kind: ItemKind, tinypmId: string): void;
  /** The marker and metadata last written into a linked target item (see identity-table.ts). */
  getLinkIdentity(job: string, kind: ItemKind, tinypmId: string): LinkIdentity | undefined;
  putLinkIdentity(job: string, kind: ItemKind, tinypmId: string, identity: LinkIdentity): void;
  /** A job's checkpoint for one system (or a key like `sync:<job>:<source>`). */
  getCheckpoint(job: string, system: string): Checkpoint | undefined;
  setCheckpoint(job: string, system: string, cp: Checkpoint, options?: CheckpointWrite): void;
  /**
   * Records a create before the remote call; idempotent per (job, kind, origin, target system).
   * @returns the intent id to confirm or drop
   */
  recordIntent(i: IntentDraft): number;
  /** Records the intents of a batch of creates in one transaction; their ids, in order. */
  recordIntents(drafts: readonly IntentDraft[]): number[];
  /** In one transaction: stores the link of the created item and deletes the intent. */
  /**
   * In one transaction: stores the link of the created item, deletes the intent and, given,
   * stores the identity the create wrote into the target item.
   */
  confirmIntent(intentId: number, link: LinkRecord, identity?: LinkIdentity): void;
  /** Creates of a job asked for and never confirmed: reconcile them (by marker) first. */
  pendingIntents(job: string): IntentRecord[];
  /** Forgets an intent whose create is known not to have happened (and releases its import claim). */
  dropIntent(intentId: number): void;
  /**
   * In one transaction: claims the import of an unmarked target item at `location` for the
   * intent's job and records the intent — or finds the claim another job holds (no intent).
   */
  claimImport(i: IntentDraft, location: string): ImportClaimResult;
  /** The jobs holding import claims on these target items of `location` (target id → job). */
  importClaims(
    targetSystem: SystemName,
    location: string,
    targetIds: readonly string[],
  ): ReadonlyMap<string, string>;
  /** The import claims `job` holds, oldest first, with what became of each. */
  claimsOf(job: string): ClaimRecord[];
  requestRun(job: string, trigger: string): RunRequest;
  settleRunRequest(job: string, version: number): RunRequest | undefined;
  runRequests(): RunRequest[];
  /** Records the start of a run (with this process's host and worker id). @returns a sortable run id */
  startRun(job: string, mode: RunMode): string;
  /** This process as the run journal names it (`processWorkerId`). */
  readonly workerId: string;
  finishRun(runId: string, result: RunResult): void;
  /** Journals this process's open runs as interrupted (it exits on a signal); returns how many. */
  interruptOwnRuns(): number;
  /** Runs, newest first. */
  runs(opts?: { job?: string; limit?: number }): RunRecord[];
  /** Parks a failed item (upsert by either id; `attempts` counts up). */
  parkFailure(f: FailureDraft): void;
  failures(job?: string): FailureRecord[];
  clearFailure(job: string, kind: ItemKind, idOnEitherSide: string): void;
  /** Opens a conflict, or updates the values of the open one of (job, kind, tinypmId, field). */
  openConflict(c: ConflictDraft): number;
  conflicts(opts?: { job?: string; status?: "open" | "resolved" }): ConflictRecord[];
  /** Marks a conflict resolved (see SqliteStore.resolveConflict). Unknown id → UsageError. */
  resolveConflict(id: number, take: "tinypm" | "target", reopen?: boolean): ConflictRecord;
  /** Records that the engine wrote a resolved conflict's chosen value. */
  markConflictApplied(id: number): void;
  /** Closes an open conflict that no longer holds (see StateStore.settleConflict). */
  settleConflict(id: number): void;
  /** The live process holding the state file now (a run going on), if any. */
  liveHolder(): LockHolder | undefined;
  /** Runs `fn` in one (nestable) transaction. */
  transaction<T>(fn: () => T): T;
  /**
   * Opens a transaction that may span awaits (the async store, sqlite-state.ts, keeps every
   * other call waiting meanwhile); ended by `commit` or `rollback`.
   */
  begin(): void;
  commit(): void;
  rollback(): void;
  /** `"ok"`, or SQLite's list of problems. */
  integrityCheck(): string;
  /** Table-level access, for `state migrate` (no other call may run meanwhile). */
  readonly tables: StateTables;
  /** Releases the lock and closes the file. Idempotent. */
  close(): void;
}

/** Builds the store's methods once the file is open, locked and migrated. */
function buildStore(db: Database, path: string, now: () => Date, close: () => void) {
  const links = createLinkTable(db, now);
  const worker = { host: hostname(), id: processWorkerId() };
  const runs = createRunJournal(db, now, worker);
  const issues = createIssueJournal(db, now);
  const identities = createIdentityTable(db);
  const confirmWithIdentity = db.transaction(
    (intentId: number, link: LinkRecord, identity?: LinkIdentity): void => {
      links.confirmIntent(intentId, link);
      if (identity !== undefined)
        identities.putLinkIdentity(link.job, link.kind, link.tinypmId, identity);
    },
  );
  return {
    path,
    workerId: worker.id,
    ...links,
    ...createClaimTable(db, now),
    ...createRunRequestTable(db, now),
    ...identities,
    confirmIntent: (intentId: number, link: LinkRecord, identity?: LinkIdentity): void => {
      confirmWithIdentity(intentId, link, identity);
    },
    ...runs,
    ...issues,
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
    begin: (): void => {
      db.exec("BEGIN IMMEDIATE");
    },
    commit: (): void => {
      db.exec("COMMIT");
    },
    rollback: (): void => {
      if (db.inTransaction) db.exec("ROLLBACK");
    },
    liveHolder: (): LockHolder | undefined => liveLockHolder(db),
    integrityCheck: (): string =>
      db
        .prepare<[], { integrity_check: string }>("PRAGMA integrity_check")
        .all()
        .map((r) => r.integrity_check)
        .join("\n"),
    tables: createSqliteTables(db),
    close,
  };
}

/**
 * Opens a state file: checks it is a tinypm-sync state file not newer than this build, takes
 * the single-process lock (waiting up to `waitForLockMs`, taking over a dead process's lock),
 * migrates it to the current schema and closes runs a crashed process left open.
 *
 * @throws StateError `state_invalid` (not SQLite, corrupt, another application, newer schema;
 *   the file is never written) or `state_locked` (held by a live process, named by pid)
 * @example
 * const state = openSqliteStore({ path: ".tinypm-sync/state.db" });
 * try { … } finally { state.close(); }
 */
export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  const { path } = options;
  const now = options.now ?? (() => new Date());
  if (options.readOnly === true) return openReadOnly(path, now);
  const isNew = !existsSync(path);
  const db = openDatabase(path);
  if (isNew) chmodSync(path, 0o600);
  let lock;
  try {
    lock = acquireLock(db, { path, waitForLockMs: options.waitForLockMs ?? 0, now });
    migrate(db);
  } catch (error) {
    db.close();
    throw asStateError(path, error);
  }
  const { token, takenOverFrom } = lock;
  const store = buildStore(db, path, now, () => {
    if (!db.open) return;
    releaseLock(db, token);
    db.close();
  });
  // We hold the lock, so a run still marked running belongs to a process that is gone.
  store.closeAbandonedRuns();
  return { ...store, tookOverLockFrom: takenOverFrom };
}

/** A missing file reads as an empty state (an in-memory database); nothing is created. */
function openReadOnly(path: string, now: () => Date): SqliteStore {
  let db: Database;
  if (existsSync(path)) {
    db = openDatabaseReadOnly(path);
  } else {
    db = new BetterSqlite3(":memory:");
    migrate(db);
    db.pragma("query_only = ON");
  }
  const store = buildStore(db, path, now, () => {
    if (db.open) db.close();
  });
  return { ...store, tookOverLockFrom: undefined };
}
