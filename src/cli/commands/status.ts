import { statusOfLoaded, type StatusJson } from "../../library/status.js";
import type { RunRecord } from "../../state/store.js";
import { openConfig, type LogFlags } from "../session.js";
import { configOption, logOptions } from "../options.js";
import { createdWords, runLine, when } from "../run-words.js";
import { workerTable } from "../worker-table.js";
import type { RegisterCommand } from "./index.js";

/** `status`: links, last runs, parked failures and open conflicts, per job (read-only). */
export const registerStatus: RegisterCommand = (program, ctx) => {
  const cmd = program
    .command("status")
    .description(
      "per job: last run and last successful run, a run going on now, open conflicts, parked failures, links, import claims",
    );
  configOption(cmd).option("--json", "print the status as one JSON object");
  logOptions(cmd).action(async (flags: { config?: string; json?: boolean } & LogFlags) => {
    const { loaded } = openConfig(ctx, flags.config, {
      ...flags,
      secrets: "optional",
      logLevel: flags.logLevel ?? "warn",
    });
    const out = await statusOfLoaded(loaded);
    if (flags.json === true) {
      ctx.stdout.write(`${JSON.stringify(out)}\n`);
      return;
    }
    // A run that reads interrupted but never finished was still marked running: its process is gone.
    const gone = new Set(
      out.jobs
        .flatMap((j) =>
          j.lastRuns.filter((r) => r.outcome === "interrupted" && r.finishedAt === null),
        )
        .map((r) => r.id),
    );
    ctx.stdout.write(statusText(out, gone));
  });
};

type RunJson = StatusJson["jobs"][number]["lastRuns"][number];

/** A run back as a record; one whose process is gone was still marked running in the state. */
function asRecord(r: RunJson, job: string, gone: ReadonlySet<string>): RunRecord {
  return {
    id: r.id,
    job,
    mode: r.mode,
    pid: 0,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt ?? undefined,
    outcome: gone.has(r.id) ? "running" : r.outcome,
    counts: r.counts,
    apiCalls: {},
  };
}

/** The status for people: one block per job, every outcome in words. */
export function statusText(status: StatusJson, gone: ReadonlySet<string> = new Set()): string {
  const lines = [`State: ${status.state}`];
  for (const j of status.jobs) {
    lines.push("", `Job ${j.job} → ${j.target}: ${j.links} linked item${j.links === 1 ? "" : "s"}`);
    const last = j.lastRuns.find((r) => r.outcome !== "running");
    lines.push(
      `  running now: ${j.running === null ? "no" : `${j.running.mode} since ${when(j.running.startedAt)}`}`,
    );
    lines.push(
      `  last run: ${last === undefined ? "never" : runLine(asRecord(last, j.job, gone), last.outcome)}`,
    );
    const success = j.lastSuccess;
    lines.push(
      `  last successful run: ${success === null ? "never" : success.id === last?.id ? "the last run" : runLine(asRecord(success, j.job, gone), success.outcome)}`,
    );
    if (j.lastRuns.length > 0)
      lines.push("  recent runs (newest first; `undo --run ID` takes back what one created):");
    for (const r of j.lastRuns)
      lines.push(
        `    - ${r.id} ${r.mode} ${r.counts.limitWaitUntil === undefined ? r.outcome : "waiting for limits"}: ${createdWords(r.counts)}, ${r.counts.updated ?? 0} updated`,
      );
    const rebuilt = last?.counts.linksRebuilt ?? 0;
    if (last !== undefined)
      lines.push(
        `  links rebuilt from markers or content in the last run: ${rebuilt}` +
          (rebuilt > 0 ? " (the state did not hold them; see docs/sync.md, Identity)" : ""),
      );
    lines.push(
      `  open conflicts: ${j.conflicts.length}${j.conflicts.length > 0 ? " (see `tinypm-sync conflicts list`)" : ""}`,
    );
    for (const c of j.conflicts)
      lines.push(`    - #${c.id} ${c.kind} ${c.tinypmId} ⇄ ${c.targetId}: field ${c.field}`);
    lines.push(
      `  parked failures: ${j.failures.length}${j.failures.length > 0 ? " (the next run tries them again)" : ""}`,
    );
    for (const f of j.failures)
      lines.push(
        `    - ${f.kind} ${f.tinypmId ?? f.targetId ?? "?"}: [${f.code}] ${f.message} (${f.attempts} attempt${f.attempts === 1 ? "" : "s"})`,
      );
    if (j.claims.held > 0) {
      lines.push(
        `  import claims on a shared target: ${j.claims.held} (${j.claims.imported} imported${j.claims.open.length > 0 ? `, ${j.claims.open.length} not` : ""})`,
      );
      for (const c of j.claims.open)
        lines.push(
          `    - ${c.kind} ${c.targetId} on ${c.location}, claimed ${when(c.claimedAt)}: ${c.status === "importing" ? "being imported (an interrupted import is settled by the job's next run)" : "unlinked since (no other job imports it)"}`,
        );
    }
  }
  lines.push("", ...workerTable(status.workers));
  return `${lines.join("\n")}\n`;
}
