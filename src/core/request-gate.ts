import { linkedSignals } from "./abort-watch.js";
import type { SystemName } from "./model.js";

/**
 * The one seam every HTTP request of every adapter passes through. `core` declares it, `gate/`
 * implements it (concurrency, pacing windows, keyed windows, `Retry-After`/reset waits, retries of
 * requests that are safe to repeat), and adapters only describe their requests and map their
 * service's errors to `core/errors` (`RateLimitError` with `retryAfterMs`, transient
 * `RemoteUnavailableError`, …), which is the gate's vocabulary for "wait" and "retry".
 */

/** What a request costs against a service's limits. */
export type RequestKind = "read" | "write" | "search";

/** One HTTP request, as an adapter hands it to the gate. */
export interface GateRequest<T> {
  readonly system: SystemName;
  readonly kind: RequestKind;
  /** For events, logs and errors, e.g. `POST /repos/o/r/issues` or `GET story 12`. */
  readonly name: string;
  /**
   * What the request does, as the run's counts per operation name it (`issue.bulkCreate`,
   * `issues.create`); absent = counted only as a read or a write.
   */
  readonly operation?: string | undefined;
  /** A keyed window (Jira: writes to one issue); absent = the system's windows only. */
  readonly key?: string | undefined;
  /** Safe to send again after an ambiguous failure (GET, PUT of a whole document, DELETE). */
  readonly idempotent: boolean;
  /** Sends the request; `signal` aborts it (run stopped, request timed out). */
  readonly send: (signal: AbortSignal) => Promise<T>;
  /**
   * Read once after each answer: how long the service asks every later request to wait although
   * it answered this one (Jira Data Center's empty token bucket, `X-RateLimit-Remaining: 0`).
   * The gate pauses as for a `Retry-After`, a `service` wait. Absent or 0: no pause.
   */
  readonly holdMs?: (() => number | undefined) | undefined;
  /**
   * A read-modify-write (a GET, then the write built from it, in this one write's turn): the
   * GET's operation, counted as a read on every attempt, and whether the attempt went on to send
   * the write (a read that shows a person's edit sends none, and no write is counted).
   */
  readonly readFirst?: { readonly operation: string; readonly wrote: () => boolean } | undefined;
}

/** The gate adapters receive from the registry. */
export interface RequestGate {
  /** Sends `request` when its system's limits allow, retrying it when that is safe. */
  request<T>(request: GateRequest<T>): Promise<T>;
}

/** Why the gate is holding requests back. */
export type WaitReason =
  /** A configured window is full (`writesPerMinute`, `writesPerHour`, `readsPerSecond`, …). */
  | "minute"
  | "hour"
  | "second"
  /** A keyed window (one Jira issue's writes). */
  | "key"
  /** The service said so: `Retry-After`, `x-ratelimit-reset`, a secondary limit. */
  | "service"
  /** Backoff before retrying a failed request. */
  | "retry";

/** What the gate reports: every wait and every request, never silent. */
export type GateEvent =
  | {
      readonly type: "wait_start";
      readonly system: SystemName;
      readonly reason: WaitReason;
      /** Epoch ms when requests resume (as far as the gate knows). */
      readonly until: number;
      /** The request that met the wait. */
      readonly name: string;
    }
  | { readonly type: "wait_end"; readonly system: SystemName; readonly waitedMs: number }
  | {
      readonly type: "request";
      readonly system: SystemName;
      readonly kind: RequestKind;
      readonly name: string;
      /** HTTP status, or `error` when no response came (timeout, reset, aborted). */
      readonly status: number | "error";
      readonly durationMs: number;
    }
  | {
      readonly type: "retry";
      readonly system: SystemName;
      readonly name: string;
      readonly attempt: number;
      readonly delayMs: number;
      /** The failed attempt's error code and message. */
      readonly code: string;
      readonly reason: string;
    };

/**
 * Sends each request once, with no limits and no retry: for adapters used as a library without
 * a gate (tests of their mapping, one-off scripts). Runs built by the CLI always pass a real gate.
 */
export const ungated: RequestGate = {
  request: (r) => r.send(new AbortController().signal),
};

/**
 * Runs `send` with the request's own signal (a call's `signal` option) and the gate's as one,
 * released when it settles: the call's signal is often the run's, which outlives every request.
 */
export async function withBothSignals<T>(
  own: AbortSignal | undefined,
  gate: AbortSignal,
  send: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  if (own === undefined) return send(gate);
  const both = linkedSignals(own, gate);
  try {
    return await send(both.signal);
  } finally {
    both.release();
  }
}
