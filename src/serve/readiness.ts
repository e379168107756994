import type { SystemName } from "../core/model.js";
import type { SystemCheck } from "./types.js";

/** What GET /readyz answers. */
export interface Readiness {
  readonly ready: boolean;
  /** Why not ready, one reason per line (empty when ready). */
  readonly reasons: readonly string[];
}

/**
 * Tracks readiness: the state answers now, and every system of every job answered a probe once.
 * The state is watched for as long as the process serves (a PostgreSQL state may become
 * unreachable and come back): while it does not answer, or once a run lost its job's lease or
 * could not reach it, the process is not ready; the next check that reaches it makes it ready
 * again. A system that answered stays ready (a later outage shows in runs and metrics, not here).
 */
export interface ReadinessTracker {
  /** The state answered (opened, or a run reached it). */
  stateOpened(): void;
  /** The state did not answer, or a run lost its lease: `reason` says what happened. */
  stateFailed(reason: string): void;
  record(checks: readonly SystemCheck[]): void;
  /** Jobs × systems that have not answered yet. */
  missing(): readonly SystemCheck[];
  current(): Readiness;
}

export function createReadiness(
  expected: readonly { job: string; systems: readonly SystemName[] }[],
): ReadinessTracker {
  let state: string | undefined = "the state has not been opened yet";
  const answered = new Set<string>();
  const last = new Map<string, SystemCheck>();
  const key = (job: string, system: SystemName): string => `${job}\u0000${system}`;
  const missing = (): SystemCheck[] =>
    expected.flatMap(({ job, systems }) =>
      systems
        .filter((system) => !answered.has(key(job, system)))
        .map(
          (system) =>
            last.get(key(job, system)) ??
            ({ job, system, ok: false, detail: "not probed yet" } satisfies SystemCheck),
        ),
    );
  return {
    stateOpened() {
      state = undefined;
    },
    stateFailed(reason) {
      state = `the state is not available: ${reason}`;
    },
    record(checks) {
      for (const c of checks) {
        last.set(key(c.job, c.system), c);
        if (c.ok) answered.add(key(c.job, c.system));
      }
    },
    missing,
    current() {
      const reasons = [
        ...(state === undefined ? [] : [state]),
        ...missing().map((c) => `job ${c.job}: ${c.system} has not answered (${c.detail})`),
      ];
      return { ready: reasons.length === 0, reasons };
    },
  };
}
