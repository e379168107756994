import { ExitCode } from "../../core/errors.js";
import { configOption, logOptions, reportOptions, type JobCommandFlags } from "../options.js";
import { runConfiguredJob } from "../job-run.js";
import { planExitCode, printRun, settleRuns } from "../run-report.js";
import { durationEstimator } from "../plan-estimate.js";
import { savedPlanFor, writeSavedPlan } from "../../library/save-plan.js";
import { openOneJob } from "../session.js";
import type { RegisterCommand } from "./index.js";

interface PlanFlags extends JobCommandFlags {
  job?: string;
  migrate?: boolean;
  detailedExitcode?: boolean;
  json?: boolean;
  save?: string;
}

/** `plan`: a dry run — what `sync` (or, with --migrate, `migrate`) would do. Writes nothing. */
export const registerPlan: RegisterCommand = (program, ctx) => {
  const cmd = program
    .command("plan")
    .description(
      "dry run of migrate/sync: what would change, field by field, and the API calls it would take; writes nothing to any system or to the state",
    )
    .option("-j, --job <name>", "the job to plan (default: the config's only job)");
  configOption(cmd);
  reportOptions(cmd)
    .option("--migrate", "plan what `migrate` would do (one-way copy) instead of `sync`")
    .option("--json", "the same as --format json (as `migrate`, `sync` and `status` take it)")
    .option(
      "--save <file>",
      "also write the plan itself (JSON, no secrets) for `apply --config FILE PLAN_FILE` to carry out",
    )
    .option(
      "--detailed-exitcode",
      "exit 0 when there is nothing to do, 2 when there are changes, 4 when there are conflicts",
    );
  logOptions(cmd).action(async (flags: PlanFlags) => {
    const { session, resolved } = openOneJob(ctx, flags.config, flags);
    const run = await runConfiguredJob(ctx, session, resolved, {
      mode: flags.migrate === true ? "migrate" : "sync",
      dryRun: true,
    });
    if (flags.save !== undefined) {
      writeSavedPlan(flags.save, await savedPlanFor(session, resolved, run));
      ctx.stderr.write(
        `Plan saved to ${flags.save}: apply it with tinypm-sync apply --config ${session.loaded.file} ${flags.save}\n`,
      );
    }
    printRun(ctx, run, {
      format: flags.json === true ? "json" : flags.format,
      out: flags.out,
      verbose: flags.verbose,
      estimate: durationEstimator(resolved),
    });
    settleRuns(ctx, [run]);
    // A plan that ran is a success: conflicts and parked items are what it reports, not failures.
    ctx.exitCode = flags.detailedExitcode === true ? planExitCode(run) : ExitCode.ok;
  });
};
