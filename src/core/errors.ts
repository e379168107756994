import type { SystemName } from "./model.js";

/** Stable error codes, one entry each in docs/errors.md. */
export type ErrorCode =
  | "config_invalid"
  | "mapping_invalid"
  | "usage"
  | "auth_failed"
  | "permission_denied"
  | "remote_unavailable"
  | "not_found"
  | "rate_limited"
  | "limit_wait"
  | "mass_delete"
  | "plan_stale"
  | "plan_mismatch"
  | "payload_invalid"
  | "conflict"
  | "conflict_resolved"
  | "state_invalid"
  | "state_locked"
  | "state_unavailable"
  | "interrupted"
  | "internal";

interface SyncErrorOptions {
  /** The next thing the user should do. */
  readonly hint?: string | undefined;
  /** Structured context, already free of secrets, safe to log. */
  readonly details?: Readonly<Record<string, unknown>> | undefined;
  readonly cause?: unknown;
}

/**
 * The base of every error the tool throws on purpose. The message says what failed, on what,
 * with evidence; the hint says what to do. Nothing in either may contain a secret.
 */
export abstract class SyncError extends Error {
  abstract readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(message: string, opts: SyncErrorOptions = {}) {
    super(message, { cause: opts.cause });
    this.name = new.target.name;
    this.hint = opts.hint;
    this.details = opts.details ?? {};
  }
}

/** One problem found while validating a file: where, what was found, what is allowed. */
export interface ValidationIssue {
  readonly file?: string | undefined;
  /** Path inside the document, printed as `a > b > c`. */
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** A file failed validation: every problem found, each with its path. */
export abstract class ValidationError extends SyncError {
  readonly issues: readonly ValidationIssue[];
  constructor(
    message: string,
    opts: SyncErrorOptions & { issues?: readonly ValidationIssue[] } = {},
  ) {
    super(message, opts);
    this.issues = opts.issues ?? [];
  }
}

export class ConfigError extends ValidationError {
  readonly code = "config_invalid";
}

export class MappingError extends ValidationError {
  readonly code = "mapping_invalid";
}

export class UsageError extends SyncError {
  readonly code = "usage";
}

/** Context every remote error carries: which system, which operation, which item. */
export interface RemoteContext {
  readonly system: SystemName;
  /** e.g. `GET /userstory/{id}` or `issues.create`. */
  readonly operation: string;
  readonly id?: string | undefined;
  readonly status?: number | undefined;
}

abstract class RemoteErrorBase extends SyncError {
  readonly system: SystemName;
  readonly operation: string;
  readonly status: number | undefined;
  constructor(message: string, ctx: RemoteContext, opts: SyncErrorOptions = {}) {
    super(message, {
      ...opts,
      details: {
        system: ctx.system,
        operation: ctx.operation,
        id: ctx.id,
        status: ctx.status,
        ...opts.details,
      },
    });
    this.system = ctx.system;
    this.operation = ctx.operation;
    this.status = ctx.status;
  }
}

export class AuthError extends RemoteErrorBase {
  readonly code = "auth_failed";
}

export class PermissionError extends RemoteErrorBase {
  readonly code = "permission_denied";
}

/** DNS failure, refused connection, reset, timeout or 5xx. `transient` errors may be retried. */
export class RemoteUnavailableError extends RemoteErrorBase {
  readonly code = "remote_unavailable";
  readonly transient: boolean;
  constructor(
    message: string,
    ctx: RemoteContext,
    opts: SyncErrorOptions & { transient?: boolean } = {},
  ) {
    super(message, ctx, opts);
    this.transient = opts.transient ?? true;
  }
}

export class NotFoundError extends RemoteErrorBase {
  readonly code = "not_found";
}

export class RateLimitError extends RemoteErrorBase {
  readonly code = "rate_limited";
  /** How long the remote asked us to wait. */
  readonly retryAfterMs: number;
  /** `primary` (quota exhausted), `secondary` (GitHub abuse limit), or `burst`. */
  readonly limit: "primary" | "secondary" | "burst";
  constructor(
    message: string,
    ctx: RemoteContext,
    opts: SyncErrorOptions & { retryAfterMs: number; limit?: "primary" | "secondary" | "burst" },
  ) {
    super(message, ctx, opts);
    this.retryAfterMs = opts.retryAfterMs;
    this.limit = opts.limit ?? "primary";
  }
}

/**
 * A limit would hold the run back longer than its wait budget: the run stops before the next
 * request (nothing half-done) and a rerun after `resumeAt` proceeds; `--wait-for-limits` waits.
 */
export class LimitWaitError extends SyncError {
  readonly code = "limit_wait";
  readonly system: SystemName;
  /** Epoch ms when the limit lets requests through again. */
  readonly resumeAt: number;
  constructor(
    message: string,
    o: SyncErrorOptions & { system: SystemName; resumeAt: number; waitMs: number; reason: string },
  ) {
    super(message, {
      ...o,
      details: {
        system: o.system,
        resumeAt: new Date(o.resumeAt).toISOString(),
        waitMs: o.waitMs,
        reason: o.reason,
        ...o.details,
      },
    });
    this.system = o.system;
    this.resumeAt = o.resumeAt;
  }
}

/**
 * A run's plan would delete or close more linked items on one side than the job's `maxDeletes`:
 * the run stopped before its first write (`--allow-deletes` lets one run through).
 */
export class MassDeleteError extends SyncError {
  readonly code = "mass_delete";
}

/**
 * `apply` of a saved plan: something an action depends on changed since the plan was made (an
 * item on either side, a link's base), or the state ran the job since. Nothing was written.
 */
export class PlanStaleError extends SyncError {
  readonly code = "plan_stale";
}

/**
 * `apply` of a saved plan made for another config, job or state, or a file that is no saved
 * plan: refused before anything is read or written.
 */
export class PlanMismatchError extends SyncError {
  readonly code = "plan_mismatch";
}

/** A remote payload failed our schema, or was hostile (DOCTYPE, entities, too large, too deep). */
export class PayloadInvalidError extends RemoteErrorBase {
  readonly code = "payload_invalid";
}

/**
 * `conflicts resolve` on a conflict already resolved with the other side: refused, nothing
 * changed; `--reopen` changes the decision on purpose.
 */
export class ConflictResolvedError extends SyncError {
  readonly code = "conflict_resolved";
}

/** The item changed on the remote since the caller planned against it; nothing was written. */
export class ConflictError extends RemoteErrorBase {
  readonly code = "conflict";
}

export class StateError extends SyncError {
  readonly code: "state_invalid" | "state_locked" | "state_unavailable";
  constructor(
    code: "state_invalid" | "state_locked" | "state_unavailable",
    message: string,
    opts: SyncErrorOptions = {},
  ) {
    super(message, opts);
    this.code = code;
  }
}

/** The run was stopped by a signal; the state is consistent and a rerun resumes. */
export class InterruptedError extends SyncError {
  readonly code = "interrupted";
}

/** A bug in the tool. */
export class InternalError extends SyncError {
  readonly code = "internal";
}

/** Process exit codes (architecture.md). */
export const ExitCode = {
  ok: 0,
  internal: 1,
  nothingDone: 2,
  aborted: 3,
  itemsFailed: 4,
  interrupted: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit code an error ends the process with, when it ends the process. */
export function exitCodeFor(error: unknown): ExitCodeValue {
  if (!(error instanceof SyncError)) return ExitCode.internal;
  switch (error.code) {
    case "config_invalid":
    case "mapping_invalid":
    case "usage":
    case "state_invalid":
    case "state_locked":
    case "conflict_resolved":
    case "plan_stale":
    case "plan_mismatch":
      return ExitCode.nothingDone;
    case "auth_failed":
    case "permission_denied":
    case "remote_unavailable":
    case "state_unavailable":
    case "rate_limited":
    case "limit_wait":
    case "mass_delete":
    case "not_found":
    case "payload_invalid":
      return ExitCode.aborted;
    case "conflict":
      return ExitCode.itemsFailed;
    case "interrupted":
      return ExitCode.interrupted;
    case "internal":
      return ExitCode.internal;
  }
}
