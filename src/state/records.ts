import type { ItemKind, JsonValue, SystemName } from "../core/model.js";

/**
 * The field values of both sides as last synced, with their content hashes: the "base" of the
 * three-way merge. Values are stored as JSON; hashes are the engine's, compared as strings.
 */
export interface BaseSnapshot {
  readonly tinypm: JsonValue;
  readonly target: JsonValue;
  readonly tinypmHash: string;
  readonly targetHash: string;
}

/** A tinyPM item ⇄ target item pair of one job, with the base snapshot of the last sync. */
export interface LinkRecord {
  readonly job: string;
  readonly kind: ItemKind;
  readonly tinypmId: string;
  readonly targetSystem: SystemName;
  readonly targetId: string;
  /** The side the item was first created on (git-bug's origin rule against echo loops). */
  readonly origin: SystemName;
  /** A task's story, on the tinyPM side. */
  readonly parentTinypmId?: string | undefined;
  readonly base: BaseSnapshot;
  /** ISO timestamp of the last write of this link. */
  readonly updatedAt: string;
  /**
   * Field writes recorded before they were sent and not yet followed by their base update (a run
   * stopped in between), oldest first; absent when none. Cleared by `updateBase` and `putLink`.
   */
  readonly pendingWrites?: readonly PendingWrite[] | undefined;
}

/**
 * One side's field writes, recorded before they are sent: the values written, as the base
 * snapshot compares them (`null` for a value cleared), the other side's values they came from,
 * and the item as it was read before.
 */
export interface PendingWrite {
  readonly side: SystemSide;
  /** Field name → the normalised value being written (`null`: cleared). */
  readonly fields: Readonly<Record<string, JsonValue>>;
  /**
   * Field name → the other side's value of each written field as the update read it (`null`:
   * none): the base the other side takes once the write landed, as the base update would have
   * set it. Absent in records made before it was kept: the written value stands in.
   */
  readonly source?: Readonly<Record<string, JsonValue>> | undefined;
  /** The item's `updatedAt` as read before the write (tinyPM keeps none). */
  readonly updatedAt?: string | undefined;
  /** ISO timestamp of when the write started. */
  readonly startedAt: string;
}

/** The two sides of a link. */
export type SystemSide = "tinypm" | "target";

/** What `recordIntent` takes: a create about to be sent to `targetSystem`. */
export interface IntentDraft {
  readonly job: string;
  readonly kind: ItemKind;
  /** The system and id of the item being copied. */
  readonly originSystem: SystemName;
  readonly originId: string;
  readonly targetSystem: SystemName;
  /** Hash of the create payload, to tell after a crash whether a found item is this create. */
  readonly payloadHash: string;
  /**
   * What tells the copy apart after a crash where the create cannot carry a marker (tinyPM):
   * opaque text the sync layer writes and reads (tinypm-anchor.ts), stored with the intent.
   */
  readonly anchor?: string | undefined;
}

/** A create that was asked for and not yet confirmed: after a crash, reconcile it by marker. */
export interface IntentRecord extends IntentDraft {
  readonly id: number;
  readonly createdAt: string;
}

/**
 * What `claimImport` found: the claim is this job's (new or already held) and the import's intent
 * is recorded, or another job holds it — that job imports the item, this one leaves it alone.
 */
export type ImportClaimResult =
  | { readonly intentId: number; readonly claimedBy?: undefined }
  | { readonly claimedBy: string; readonly intentId?: undefined };

/**
 * An import claim a job holds (`claimsOf`): `imported` once its item is linked, `importing` while
 * the import's intent waits (a run is on it, or one was interrupted and the job's next run
 * settles it), `unlinked` when neither is left (the link was removed since: the item stays the
 * job's, no other job sharing the target imports it).
 */
export interface ClaimRecord {
  readonly targetSystem: SystemName;
  readonly location: string;
  readonly targetId: string;
  readonly kind: ItemKind;
  readonly claimedAt: string;
  readonly status: "imported" | "importing" | "unlinked";
}

/**
 * A run of a job asked for while another worker held its lease (a webhook delivery, "Sync now"),
 * waiting in the state for the holder's or the next worker's follow-up run (`requestRun`).
 */
export interface RunRequest {
  readonly job: string;
  /** Raised by every delivery recorded: a run settles only the version it read. */
  readonly version: number;
  /** Deliveries coalesced into this one request. */
  readonly deliveries: number;
  /** Why they came (`webhook`, `manual`), each once. */
  readonly triggers: readonly string[];
  readonly firstAt: string;
  readonly lastAt: string;
}

/** The modes a run is started in. */
export type RunMode = "plan" | "migrate" | "sync";

/** How a run ended; `running` while it runs (or until the next open finds it crashed). */
export type RunOutcome = "ok" | "failed" | "interrupted" | "partial";

/** What `finishRun` records. */
export interface RunResult {
  readonly outcome: RunOutcome;
  /** e.g. `{ created, updated, unchanged, conflicts, failed, deleted }`. */
  readonly counts: Readonly<Record<string, number>>;
  /** Per system `{ reads, writes, retries, rateLimitWaits }` (the lanes' counters). */
  readonly apiCalls: Readonly<Record<string, unknown>>;
}

/** One run of a job. */
export interface RunRecord {
  readonly id: string;
  readonly job: string;
  readonly mode: RunMode;
  readonly pid: number;
  /** The host the run ran on (absent for runs journalled before schema 4 / 3). */
  readonly host?: string | undefined;
  /**
   * The process that ran it: the PostgreSQL worker's id, or `host:pid:start` on SQLite. Pids repeat
   * across hosts and containers; this does not. Absent for runs journalled before it was kept.
   */
  readonly workerId?: string | undefined;
  readonly startedAt: string;
  readonly finishedAt: string | undefined;
  readonly outcome: RunOutcome | "running";
  readonly counts: Readonly<Record<string, number>>;
  readonly apiCalls: Readonly<Record<string, unknown>>;
}

/** Which side the failing operation was on. */
export type FailureSide = "tinypm" | "target";

/** What `parkFailure` takes. At least one of the two ids is given. */
export interface FailureDraft {
  readonly runId: string;
  readonly job: string;
  readonly kind: ItemKind;
  readonly tinypmId?: string | undefined;
  readonly targetId?: string | undefined;
  readonly side: FailureSide;
  /** The error's stable code (`payload_invalid`, `not_found`, …). */
  readonly code: string;
  /** The error's message, already free of secrets. */
  readonly message: string;
}

/** An item parked after a failure; retried at the start of the next run. */
export interface FailureRecord extends FailureDraft {
  readonly id: number;
  /** How many runs failed on this item. */
  readonly attempts: number;
  readonly firstSeenAt: string;
  readonly lastSeenAt: string;
}

/** What `openConflict` takes: one field both sides changed differently since the base. */
export interface ConflictDraft {
  readonly job: string;
  readonly kind: ItemKind;
  readonly tinypmId: string;
  readonly targetId: string;
  readonly field: string;
  readonly baseValue: JsonValue;
  readonly tinypmValue: JsonValue;
  readonly targetValue: JsonValue;
}

/** A field conflict: open until resolved; a resolved one is applied by the next sync. */
export interface ConflictRecord extends ConflictDraft {
  readonly id: number;
  readonly status: "open" | "resolved";
  readonly resolution: "tinypm" | "target" | undefined;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly resolvedAt: string | undefined;
  /** Set by `markConflictApplied` once the engine wrote the chosen value to the other side. */
  readonly appliedAt: string | undefined;
}

/** Reads a JSON column written by this store. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- a typed read of our own column
export function parseJson<T>(text: string): T {
  return JSON.parse(text) as T;
}

/** `null` → `undefined` for optional columns (the core model never uses null). */
export function opt<T>(value: T | null): T | undefined {
  return value ?? undefined;
}
