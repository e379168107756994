import {
  configOption,
  logOptions,
  reportOptions,
  writeRunOptions,
  writeRunSwitches,
  type WriteRunFlags,
} from "../options.js";
import { runConfiguredJob } from "../job-run.js";
import { checkJsonAndFormat, printRun, settleRuns } from "../run-report.js";
import { openOneJob } from "../session.js";
import type { RegisterCommand } from "./index.js";

interface MigrateFlags extends WriteRunFlags {
  job?: string;
}

/** `migrate`: a resumable one-way copy of the whole project in the job's direction. */
export const registerMigrate: RegisterCommand = (program, ctx) => {
  const cmd = program
    .command("migrate")
    .description(
      "one-way copy of a whole project in the job's direction (tinyPM → target, or target → tinyPM with direction to-tinypm); resumable, never duplicates",
    )
    .option("-j, --job <name>", "the job to run (default: the config's only job)");
  configOption(cmd);
  writeRunOptions(
    cmd
      .option("--dry-run", "plan only: the same as `plan --migrate`")
      .option("--json", "print the run summary as one JSON object"),
  );
  reportOptions(cmd);
  logOptions(cmd).action(async (flags: MigrateFlags) => {
    checkJsonAndFormat({ ...flags, formatGiven: cmd.getOptionValueSource("format") === "cli" });
    const { session, resolved } = openOneJob(ctx, flags.config, flags);
    const run = await runConfiguredJob(ctx, session, resolved, {
      mode: "migrate",
      ...writeRunSwitches(flags),
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
