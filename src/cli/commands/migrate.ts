import type { ReportFormat } from "../../report/types.js";
import { configOption, logOptions, reportOptions } from "../options.js";
import { runConfiguredJob } from "../job-run.js";
import { checkJsonAndFormat, printRun, settleRuns } from "../run-report.js";
import { openConfig } from "../session.js";
import type { RegisterCommand } from "./index.js";

interface MigrateFlags {
  config?: string;
  job: string;
  dryRun?: boolean;
  json?: boolean;
  format: ReportFormat;
  out?: string;
  logLevel?: string;
  logFormat?: "json" | "pretty";
  verbose?: boolean;
  repairMarkers?: boolean;
  waitForLimits?: boolean;
}

/** `migrate`: a resumable one-way copy of the whole project in the job's direction. */
export const registerMigrate: RegisterCommand = (program, ctx) => {
  const cmd = program
    .command("migrate")
    .description(
      "one-way copy of a whole project in the job's direction (tinyPM → target, or target → tinyPM with direction to-tinypm); resumable, never duplicates",
    )
    .requiredOption("-j, --job <name>", "the job to run");
  configOption(cmd);
  cmd
    .option("--dry-run", "plan only: the same as `plan --migrate`")
    .option("--json", "print the run summary as one JSON object")
    .option(
      "--wait-for-limits",
      "when a rate limit would hold the run back more than 10 minutes, wait (default: stop with exit 3, naming when to rerun)",
    )
    .option(
      "--repair-markers",
      "write missing or damaged hidden blocks (markers) back now, not only on each item's next write",
    );
  reportOptions(cmd);
  logOptions(cmd).action(async (flags: MigrateFlags) => {
    checkJsonAndFormat({ ...flags, formatGiven: cmd.getOptionValueSource("format") === "cli" });
    const session = openConfig(ctx, flags.config, { ...flags, jobs: [flags.job] });
    const [resolved] = session.loaded.jobs;
    if (resolved === undefined) return;
    const run = await runConfiguredJob(ctx, session, resolved, {
      mode: "migrate",
      dryRun: flags.dryRun === true,
      repairMarkers: flags.repairMarkers === true,
      waitForLimits: flags.waitForLimits === true,
    });
    printRun(ctx, run, {
      json: flags.json,
      format: flags.format,
      out: flags.out,
      verbose: flags.verbose,
    });
    settleRuns(ctx, [run]);
  });
};
