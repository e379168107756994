import { runDurationMs, type RunState } from "../library/run-outcome.js";
import type { RunRecord } from "../state/store.js";
import { duration } from "./progress.js";

// How a run ended, as the status and the library read it: src/library/run-outcome.ts.
export {
  effectiveOutcome,
  runDurationMs,
  runExitCode,
  succeeded,
  type RunState,
} from "../library/run-outcome.js";

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
    case "failed": {
      const until = run.counts.limitWaitUntil;
      return until === undefined
        ? "failed: stopped by an error no retry could fix (exit 3)"
        : `waiting for limits — rerun resumes (after ${when(new Date(until).toISOString())}; exit 3)`;
    }
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
  const noted = notedWords(counts);
  if (noted !== undefined) parts.unshift(noted);
  return parts.length === 0 ? "no items" : parts.join(", ");
}

/** `3 created` as journalled, else `at least 3 created` as a run that never ended noted them. */
export function createdWords(counts: RunRecord["counts"]): string {
  return notedWords(counts) ?? `${counts.created ?? 0} created`;
}

function notedWords(counts: RunRecord["counts"]): string | undefined {
  const noted = counts.createdNoted ?? 0;
  return counts.created === undefined && noted > 0 ? `at least ${noted} created` : undefined;
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
