import { undoResolvedJob } from "../../library/undo-job.js";
import { ExitCode } from "../../core/errors.js";
import { escapeTerminal as t } from "../../report/escape.js";
import { systemLabel } from "../../report/labels.js";
import type { UndoContainer, UndoItem, UndoReport } from "../../sync/undo/undo-types.js";
import { logEvent } from "../job-run.js";
import { retryBursts } from "../retry-bursts.js";
import { configOption, logOptions } from "../options.js";
import { openOneJob } from "../session.js";
import type { RegisterCommand } from "./index.js";

interface UndoFlags {
  config?: string;
  job?: string;
  run: string;
  dryRun?: boolean;
  json?: boolean;
  logLevel?: string;
  logFormat?: "json" | "pretty";
}

/** `undo`: takes back what one run created; items a person changed since stay (exit 4). */
export const registerUndo: RegisterCommand = (program, ctx) => {
  const cmd = program
    .command("undo")
    .description(
      "remove what one run created (target issues, or tinyPM stories and tasks for a to-tinypm run) and its links; items a person changed since are left and listed (exit 4); running it again does nothing",
    )
    .option("-j, --job <name>", "the job whose run to undo (default: the config's only job)")
    .requiredOption("--run <id>", "the run to undo (its id, as `status` lists it)");
  configOption(cmd)
    .option("--dry-run", "list what would be removed and kept; write nothing")
    .option("--json", "print the result as one JSON object");
  logOptions(cmd).action(async (flags: UndoFlags) => {
    const { session, resolved } = openOneJob(ctx, flags.config, flags);
    const log = session.logger.child({ job: resolved.job.name });
    const bursts = retryBursts();
    const result = await undoResolvedJob(session, resolved, {
      runId: flags.run,
      dryRun: flags.dryRun === true,
      signal: ctx.signal,
      onEvent: (e) => {
        logEvent(log, e, bursts);
      },
    });
    ctx.stdout.write(
      flags.json === true
        ? `${JSON.stringify(result)}\n`
        : undoText(result, systemLabel(resolved.target.type)),
    );
    const kept = result.kept.length + result.containers.kept.length;
    ctx.exitCode = kept > 0 ? ExitCode.itemsFailed : ExitCode.ok;
  });
};

function undoText(r: UndoReport, target: string): string {
  const where = (i: UndoItem): string =>
    i.side === "target" ? `${target} ${i.targetId}` : `tinyPM ${i.tinypmId}`;
  const verb = r.dryRun ? "would remove" : "removed";
  const lines = [
    `Undo of run ${r.runId} (${r.job})${r.dryRun ? ", dry run: nothing written" : ""}: ${verb} ${r.summary.removed}, kept ${r.summary.kept}`,
  ];
  for (const i of r.removed)
    lines.push(
      `  ${verb} ${i.kind} ${where(i)} "${t(i.title)}"${i.how === "closed" ? " (closed as not planned, marked undone)" : ""}`,
    );
  for (const i of r.kept)
    lines.push(`  kept ${i.kind} ${where(i)} "${t(i.title)}": ${t(i.reason)}`);
  const container = (c: UndoContainer): string =>
    `${containerName(c, target)} "${t(c.name)}"${c.kind === "label" ? "" : ` (${t(c.id)})`}`;
  for (const c of r.containers.removed) lines.push(`  ${verb} ${container(c)}`);
  for (const c of r.containers.kept) lines.push(`  kept ${container(c)}: ${t(c.reason)}`);
  const nothing =
    r.summary.removed + r.summary.kept + r.containers.removed.length + r.containers.kept.length;
  if (nothing === 0) lines.push("  nothing to undo");
  return `${lines.join("\n")}\n`;
}

/** A GitHub milestone or label, a Jira sprint. */
function containerName(c: UndoContainer, target: string): string {
  if (c.kind === "label") return `${target} label`;
  return target === "Jira" ? "Jira sprint" : `${target} milestone`;
}
