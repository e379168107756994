import type { ItemKind, SystemName } from "../core/model.js";
import type { SharedBudget } from "../core/shared-budget.js";
import type { Checkpoint } from "../core/tracker.js";
import type { LinkIdentity } from "./identity-table.js";
import type { JobLease, WorkerRecord } from "./lease.js";
import type { LockHolder } from "./lock.js";
import type { StateTables } from "./tables.js";
import type {
  BaseSnapshot,
  ConflictDraft,
  ConflictRecord,
  FailureDraft,
  FailureRecord,
  ClaimRecord,
  ImportClaimResult,
  IntentDraft,
  IntentRecord,
  LinkRecord,
  PendingWrite,
  RunMode,
  RunRecord,
  RunRequest,
  RunResult,
} from "./records.js";

export type * from "./records.js";
export type { LinkIdentity } from "./identity-table.js";
export type { JobLease, WorkerRecord } from "./lease.js";
export type { LockHolder } from "./lock.js";

/** How a checkpoint write is made durable. */
export interface CheckpointWrite {
  /**
   * `false`: the record must survive the process being killed, not an OS crash or power loss
   * (a running run's notes for `undo`). SQLite then commits it without waiting for the disk
   * (WAL, synchronous = NORMAL); PostgreSQL commits as always. Default `true`.
   */
  readonly syncToDisk?: boolean | undefined;
}

/**
 * The data of a state: links with base snapshots, identities, checkpoints, create intents, runs,
 * parked failures and conflicts. Every method is asynchronous (the PostgreSQL backend talks to a
 * server); each write is one transaction, and the writes that must go together (confirming an
 * intent stores the link and drops the intent) are one transaction inside the method.
 */
export interface StateData {
  getLinkByTinypm(job: string, kind: ItemKind, tinypmId: string): Promise<LinkRecord | undefined>;
  getLinkByTarget(job: string, kind: ItemKind, targetId: string): Promise<LinkRecord | undefined>;
  /**
   * A job's links, page by page (ordered by kind, tinyPM id): memory stays flat for 100k links,
   * and writing links meanwhile is fine.
   */
  links(job: string, kind?: ItemKind): AsyncIterable<LinkRecord>;
  countLinks(job: string): Promise<number>;
  /** Links of a job per kind (kinds without links are absent). */
  countLinksByKind(job: string): Promise<Partial<Record<ItemKind, number>>>;
  /** Inserts or replaces the link of `(job, kind, tinypmId)`; a target id links to one item only. */
  putLink(link: LinkRecord): Promise<void>;
  /**
   * Replaces the base snapshot after a sync of the pair, and clears its pending writes in the
   * same statement; the link must exist.
   */
  updateBase(job: string, kind: ItemKind, tinypmId: string, base: BaseSnapshot): Promise<void>;
  /**
   * Records the field writes about to be sent to a linked pair (replacing what it held), so that
   * a run stopped before `updateBase` leaves a trace the next plan reads; the link must exist.
   */
  recordPendingWrites(
    job: string,
    kind: ItemKind,
    tinypmId: string,
    writes: readonly PendingWrite[],
  ): Promise<void>;
  deleteLink(job: string, kind: ItemKind, tinypmId: string): Promise<void>;
  /** The marker and metadata last written into a linked target item. */
  getLinkIdentity(job: string, kind: ItemKind, tinypmId: string): Promise<LinkIdentity | undefined>;
  putLinkIdentity(
    job: string,
    kind: ItemKind,
    tinypmId: string,
    identity: LinkIdentity,
  ): Promise<void>;
  /** A job's checkpoint for one system (or a key like `sync:<job>:<source>`). */
  getCheckpoint(job: string, system: string): Promise<Checkpoint | undefined>;
  setCheckpoint(
    job: string,
    system: string,
    cp: Checkpoint,
    options?: CheckpointWrite,
  ): Promise<void>;
  /**
   * Records a create before the remote call; idempotent per (job, kind, origin, target system).
   * @returns the intent id to confirm or drop
   */
  recordIntent(i: IntentDraft): Promise<number>;
  /**
   * Records the intents of a batch of creates (a bulk create) at once: all of them or, on a
   * crash or an error, none. Each as `recordIntent` would.
   * @returns the intent ids, in the order of `drafts`
   */
  recordIntents(drafts: readonly IntentDraft[]): Promise<number[]>;
  /**
   * In one transaction: stores the link of the created item, deletes the intent and, given,
   * stores the identity (marker and metadata) the create wrote into the target item.
   */
  confirmIntent(intentId: number, link: LinkRecord, identity?: LinkIdentity): Promise<void>;
  /** Creates of a job asked for and never confirmed: reconcile them (by marker) first. */
  pendingIntents(job: string): Promise<IntentRecord[]>;
  /**
   * Forgets an intent whose create is known not to have happened; an import's claim on the
   * target item is released with it (another job sharing the target may import the item).
   */
  dropIntent(intentId: number): Promise<void>;
  /**
   * The intent of importing a target item that carries no marker, with the item's import claim,
   * in one transaction. Claims are unique per (target system, `location`, item id) across every
   * job of the state: the first job to claim an item imports it; another job finds the claim
   * taken (`claimedBy`) and records nothing. A job asking again for its own claim gets its intent.
   */
  claimImport(i: IntentDraft, location: string): Promise<ImportClaimResult>;
  /** The jobs holding import claims on these target items of `location` (target id → job). */
  importClaims(
    targetSystem: SystemName,
    location: string,
    targetIds: readonly string[],
  ): Promise<ReadonlyMap<string, string>>;
  /** The import claims `job` holds, oldest first, with what became of each (`status`). */
  claimsOf(job: string): Promise<ClaimRecord[]>;
  /**
   * Records the start of a run, with this process's pid, host and worker id (the PostgreSQL
   * worker's id; `host:pid:start` on SQLite). @returns a sortable run id
   */
  startRun(job: string, mode: RunMode): Promise<string>;
  finishRun(runId: string, result: RunResult): Promise<void>;
  /** Runs, newest first. */
  runs(opts?: { job?: string; limit?: number }): Promise<RunRecord[]>;
  /** Parks a failed item (upsert by either id; `attempts` counts up). */
  parkFailure(f: FailureDraft): Promise<void>;
  failures(job?: string): Promise<FailureRecord[]>;
  clearFailure(job: string, kind: ItemKind, idOnEitherSide: string): Promise<void>;
  /** Opens a conflict, or updates the values of the open one of (job, kind, tinypmId, field). */
  openConflict(c: ConflictDraft): Promise<number>;
  conflicts(opts?: { job?: string; status?: "open" | "resolved" }): Promise<ConflictRecord[]>;
  /**
   * Marks a conflict resolved; the engine applies it on the next sync. Unknown id → UsageError.
   * Resolved already with the other side → ConflictResolvedError unless `reopen` (a deliberate
   * change of mind); with the same side it changes nothing.
   */
  resolveConflict(id: number, take: "tinypm" | "target", reopen?: boolean): Promise<ConflictRecord>;
  /** Records that the engine wrote a resolved conflict's chosen value. */
  markConflictApplied(id: number): Promise<void>;
  /**
   * Closes an open conflict that no longer holds: a run found the two sides agreeing on its
   * field, one side's change given up, or the item deleted. Resolved with no side taken, and
   * applied (there is nothing left to write); an id not open changes nothing.
   */
  settleConflict(id: number): Promise<void>;
  /**
   * Records a run of `job` asked for (`trigger`: `webhook`, `manual`) while another worker holds
   * its lease, coalesced with the one waiting: one follow-up run covers every delivery.
   */
  requestRun(job: string, trigger: string): Promise<RunRequest>;
  /**
   * Forgets the request of `job` a run covered (the `version` it read before it began), unless a
   * delivery raised it since. @returns the request forgotten, or undefined
   */
  settleRunRequest(job: string, version: number): Promise<RunRequest | undefined>;
  /** The requests waiting, oldest first. */
  runRequests(): Promise<RunRequest[]>;
}

/** Which backend holds a state. */
export type StateBackend = "sqlite" | "postgres";

/**
 * An open state: its data, one transaction at a time across several writes, the job leases that
 * keep a job on at most one process, and the workers that hold them.
 */
export interface StateStore extends StateData {
  readonly backend: StateBackend;
  /** Where the state lives, for messages: the file path, or the URL without its password. */
  readonly location: string;
  /** The dead process whose hold on the state this store took over, if any (for a warning). */
  readonly tookOverLockFrom: LockHolder | undefined;
  /**
   * Runs `fn` in one transaction: every write through `tx` commits together or not at all.
   * Other calls on this store wait until it ends (SQLite), or run beside it (PostgreSQL).
   */
  transaction<T>(fn: (tx: StateData) => Promise<T>): Promise<T>;
  /**
   * Takes the lease of a job: while held, no other process runs the job. A lease whose holder
   * stopped heart-beating expires (PostgreSQL: within 30 s), and is then taken over; runs its
   * holder left `running` are marked interrupted. Waits up to `waitMs` (default 0) for a live
   * holder, then throws `StateError("state_locked")` naming it.
   */
  claimJob(job: string, opts?: { waitMs?: number }): Promise<JobLease>;
  /** The processes working on this state now, with the jobs they hold. */
  workers(): Promise<WorkerRecord[]>;
  /** A live process holding the state or one of its jobs now (a run going on), if any. */
  liveHolder(): Promise<LockHolder | undefined>;
  /** `"ok"`, or the backend's list of problems. */
  integrityCheck(): Promise<string>;
  /** Table-level reads and writes, for copying a state between backends (`state migrate`). */
  readonly tables: StateTables;
  /**
   * The rate budget of each token shared by the processes on this state (PostgreSQL; writable
   * opens only). Absent on SQLite: one process holds the state, its gates are the whole budget.
   */
  readonly budget?: SharedBudget | undefined;
  /** Releases the leases and the lock, closes the connection. Idempotent. */
  close(): Promise<void>;
  /**
   * The last synchronous act of a process about to exit on a signal. SQLite journals this
   * process's open runs as interrupted (when `interruptRuns`) and releases the file; PostgreSQL
   * cannot write synchronously: it stops heart-beating, so its leases expire and the next claim
   * of each job journals the runs it left as interrupted.
   */
  stopNow(interruptRuns: boolean): void;
}
