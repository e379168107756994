import type { RunRecord } from "../state/sqlite-store.js";
import { duration } from "./progress.js";

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

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** `succeeded`, `finished with 1 open conflict (exit 4)`, `interrupted (its process is gone)`… */
export function outcomeWords(run: RunRecord, outcome: RunState): string {
  const conflicts = run.counts.conflicts ?? 0;
  const failed = run.counts.failed ?? 0;
  switch (outcome) {
    case "running":
      return `running now (pid ${run.pid})`;
    case "interrupted":
      return run.outcome === "running"
        ? "interrupted: its process is gone (exit unknown); the next run resumes"
        : "interrupted by a signal (exit 130); the next run resumes";
    case "failed":
      return "failed: stopped by an error no retry could fix (exit 3)";
    case "partial":
    case "ok": {
      const left = [
        failed > 0 ? plural(failed, "parked failure") : "",
        conflicts > 0 ? plural(conflicts, "open conflict") : "",
      ].filter(Boolean);
      return left.length === 0
        ? "succeeded (exit 0)"
        : `finished with ${left.join(" and ")} (exit 4)`;
    }
  }
}

/** `3 created, 2 updated, 61 unchanged` — the non-zero counts (all zero: `no changes`). */
export function countsWords(counts: RunRecord["counts"]): string {
  const order = ["created", "updated", "deleted", "unchanged", "conflicts", "failed"];
  const parts = order
    .filter((k) => (counts[k] ?? 0) > 0)
    .map((k) => `${counts[k]} ${k === "conflicts" ? "in conflict" : k}`);
  return parts.length === 0 ? "no items" : parts.join(", ");
}

/** `2026-11-23 21:00:03 UTC`. */
export function when(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** One line for a run: mode, outcome in words, when, how long, counts. */
export function runLine(run: RunRecord, outcome: RunState): string {
  const took = runDurationMs(run);
  const at = when(run.finishedAt ?? run.startedAt);
  const timing =
    took === null
      ? `started ${when(run.startedAt)}`
      : `at ${at}, took ${took < 10_000 ? `${(took / 1000).toFixed(1)} s` : duration(took)}`;
  return `${run.mode} ${outcomeWords(run, outcome)} — ${timing} — ${countsWords(run.counts)}`;
}
