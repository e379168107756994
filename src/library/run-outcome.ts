import type { RunRecord } from "../state/store.js";

/** A run's outcome as the status shows it: `running` only while its process is alive. */
export type RunState = RunRecord["outcome"];

/** `running` for a run whose process is gone reads `interrupted`: it will never finish. */
export function effectiveOutcome(run: RunRecord, livePid: number | undefined): RunState {
  return run.outcome === "running" && run.pid !== livePid ? "interrupted" : run.outcome;
}

/** The exit code the run's command ended with, as far as the state knows (null while running). */
export function runExitCode(outcome: RunState, counts: RunRecord["counts"]): number | null {
  switch (outcome) {
    case "running":
      return null;
    case "interrupted":
      return 130;
    case "failed":
      return 3;
    case "partial":
      return 4;
    case "ok":
      return (counts.conflicts ?? 0) > 0 || (counts.failed ?? 0) > 0 ? 4 : 0;
  }
}

/** A run that ended with exit 0: everything applied, nothing parked, no conflict left open. */
export function succeeded(run: RunRecord): boolean {
  return run.outcome === "ok" && runExitCode("ok", run.counts) === 0;
}

/** How long a run took (null while it runs). */
export function runDurationMs(run: RunRecord): number | null {
  if (run.finishedAt === undefined) return null;
  return Math.max(0, Date.parse(run.finishedAt) - Date.parse(run.startedAt));
}
