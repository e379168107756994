import { applySavedPlan, type ApplyResult } from "../../library/apply-job.js";
import { readSavedPlan } from "../../library/save-plan.js";
import type { SavedPlanFile } from "../../sync/saved-plan/plan-file.js";
import { applyJson } from "../apply-output.js";
import { runConfiguredEvents } from "../job-run.js";
import { configOption, logOptions, reportOptions, type JobCommandFlags } from "../options.js";
import { checkJsonAndFormat, printRun, settleRuns } from "../run-report.js";
import { openConfig } from "../session.js";
import type { RegisterCommand } from "./index.js";

interface ApplyFlags extends JobCommandFlags {
  json?: boolean;
}

/** `apply`: carries out exactly a plan saved by `plan --save`, refusing it when stale. */
export const registerApply: RegisterCommand = (program, ctx) => {
  const cmd = program
    .command("apply")
    .description(
      "carry out exactly a plan saved by `plan --save FILE`; refuses (exit 2, plan_stale) with nothing written when anything it would touch changed since; resumable, and a second apply of the same plan does nothing",
    )
    .argument("<plan-file>", "the plan `plan --save` wrote");
  configOption(cmd).option("--json", "print the run summary as one JSON object");
  reportOptions(cmd);
  logOptions(cmd).action(async (file: string, flags: ApplyFlags) => {
    checkJsonAndFormat({ ...flags, formatGiven: cmd.getOptionValueSource("format") === "cli" });
    const plan = readSavedPlan(file);
    const session = openConfig(ctx, flags.config, { ...flags, jobs: [plan.job] });
    const [resolved] = session.loaded.jobs;
    if (resolved === undefined) return;
    const result = await runConfiguredEvents(ctx, session, resolved, (onEvent) =>
      applySavedPlan(session, resolved, plan, {
        file,
        signal: ctx.signal,
        beforeForcedExit: ctx.beforeForcedExit,
        onEvent,
      }),
    );
    if (flags.json === true) ctx.stdout.write(`${JSON.stringify(applyJson(plan, result))}\n`);
    else ctx.stderr.write(`${applyLine(file, plan, result)}\n`);
    if (result.kind === "already-applied") return;
    // --json owns stdout: the report goes to --out only, as with `migrate --json --out`.
    if (flags.json !== true || flags.out !== undefined)
      printRun(ctx, result.run, { format: flags.format, out: flags.out, verbose: flags.verbose });
    settleRuns(ctx, [result.run]);
  });
};

function applyLine(file: string, plan: SavedPlanFile, r: ApplyResult): string {
  if (r.kind === "already-applied")
    return `Plan ${file} (${plan.id}) was applied already by run ${r.runId}: nothing to do.`;
  const parts = [
    `Applied plan ${file} (${plan.id}) to job ${plan.job}: ${plan.actions.length} planned actions`,
  ];
  if (r.alreadyDone > 0)
    parts.push(`${r.alreadyDone} carried out by an earlier, interrupted apply`);
  if (r.outside > 0)
    parts.push(
      `${r.outside} change${r.outside === 1 ? "" : "s"} made since, not in the plan, left for the next run`,
    );
  return parts.join("; ");
}
