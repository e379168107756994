import { closeSync, openSync, writeSync } from "node:fs";
import { ExitCode, InterruptedError, UsageError } from "../core/errors.js";
import { renderChunks, shouldColor } from "../report/render.js";
import type { Report, ReportDurationEstimate, ReportFormat } from "../report/types.js";
import type { RunReport } from "../sync/engine.js";
import { toReport } from "../sync/report-data.js";
import { needsAttention } from "../sync/outcome.js";
import type { CliContext } from "./context.js";
import { runSummaryJson } from "./json-output.js";
import { systemLabel } from "../core/system-label.js";

/**
 * Prints a run: its report in the chosen format (to a file with --out), or the --json summary.
 * With --json alone the report is not built: for a large project it holds every item's fields
 * and description diff, tens of MB at the end of a run that prints one line.
 */
export function printRun(
  ctx: CliContext,
  run: RunReport,
  opts: {
    json?: boolean | undefined;
    format?: ReportFormat | undefined;
    out?: string | undefined;
    verbose?: boolean | undefined;
    /** A dry run's duration estimate, from the report's estimated writes (see plan-estimate.ts). */
    estimate?: ((report: Report) => ReportDurationEstimate | undefined) | undefined;
  },
): void {
  if (opts.json === true) {
    ctx.stdout.write(`${JSON.stringify(runSummaryJson(run))}\n`);
    // With --out, the report goes to its file as well: --json owns stdout, not the report.
    if (reportDetail(opts) === "summary") return;
  }
  const made = toReport(run);
  const estimated = made.dryRun ? opts.estimate?.(made) : undefined;
  const report: Report = estimated === undefined ? made : { ...made, estimatedDuration: estimated };
  const format = opts.format ?? "text";
  const color =
    opts.out === undefined &&
    format === "text" &&
    shouldColor({ isTTY: ctx.stdout.isTTY === true, env: ctx.env });
  // Written as it is rendered: a large run's text report is never one text in memory.
  const chunks = renderChunks(report, format, {
    color,
    verbose: opts.verbose === true,
    targetName: systemLabel(run.targetSystem),
  });
  if (opts.out !== undefined) {
    const fd = openSync(opts.out, "w");
    try {
      for (const chunk of chunks) writeSync(fd, chunk);
    } finally {
      closeSync(fd);
    }
    ctx.stderr.write(`Report written to ${opts.out}\n`);
  } else {
    let last = "";
    for (const chunk of chunks) {
      ctx.stdout.write(chunk);
      last = chunk;
    }
    if (!last.endsWith("\n")) ctx.stdout.write("\n");
  }
}

/**
 * What a run printed with these flags reads of its report: `--json` without `--out` prints the
 * summary alone, so the run need not keep its items for a report (run-options.ts `report`).
 */
export function reportDetail(opts: {
  json?: boolean | undefined;
  out?: string | undefined;
}): "full" | "summary" {
  return opts.json === true && opts.out === undefined ? "summary" : "full";
}

/**
 * `--json` prints the summary on stdout, so a report in another format needs a file: refuse
 * `--json --format F` without `--out` instead of dropping the report silently.
 */
export function checkJsonAndFormat(opts: {
  json?: boolean | undefined;
  format?: ReportFormat | undefined;
  out?: string | undefined;
  formatGiven: boolean;
}): void {
  if (opts.json === true && opts.formatGiven && opts.out === undefined) {
    throw new UsageError(
      `--json prints the run summary on stdout, so the ${opts.format ?? "text"} report has nowhere to go.`,
      { hint: "Add --out <file> to write the report to a file as well, or drop --format." },
    );
  }
}

/**
 * `plan --detailed-exitcode`: 0 nothing to do, 2 changes to make, 4 conflicts (or items the run
 * could not plan) — as `terraform plan -detailed-exitcode` does.
 */
export function planExitCode(run: RunReport): number {
  const s = run.summary;
  if (needsAttention(s)) return ExitCode.itemsFailed;
  return s.created + s.updated + s.deleted > 0 ? ExitCode.nothingDone : ExitCode.ok;
}

/** Exit 4 when items failed or wait in conflict, else 0. */
export function exitCodeOf(runs: readonly RunReport[]): number {
  return runs.some((r) => needsAttention(r.summary)) ? ExitCode.itemsFailed : ExitCode.ok;
}

/**
 * Sets the exit code of finished runs. A run stopped by SIGINT/SIGTERM returns normally (the
 * engine marks the unfinished items as failed); that is an interruption, not failed items: 130.
 */
export function settleRuns(ctx: CliContext, runs: readonly RunReport[]): void {
  if (ctx.signal.aborted) {
    const done = runs.reduce(
      (n, r) => n + r.summary.created + r.summary.updated + r.summary.deleted,
      0,
    );
    throw new InterruptedError(
      `Stopped by a signal after ${done} change${done === 1 ? "" : "s"}; the state is consistent.`,
      {
        hint: "Run the same command again: it resumes where this run stopped, without duplicates.",
      },
    );
  }
  ctx.exitCode = exitCodeOf(runs);
}
