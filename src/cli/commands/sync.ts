import { InterruptedError, UsageError } from "../../core/errors.js";
import type { RunReport } from "../../sync/engine.js";
import {
  configOption,
  logOptions,
  reportOptions,
  parseDuration,
  writeRunOptions,
  writeRunSwitches,
  type WriteRunFlags,
} from "../options.js";
import { runConfiguredJob } from "../job-run.js";
import { checkJsonAndFormat, printRun, settleRuns } from "../run-report.js";
import { durationEstimator } from "../plan-estimate.js";
import { openConfig } from "../session.js";
import { watchJobs } from "../watch.js";
import { DEFAULT_OUTAGE_POLICY } from "../watch-outages.js";
import type { CliContext } from "../context.js";
import type { RegisterCommand } from "./index.js";

interface SyncFlags extends WriteRunFlags {
  job?: string;
  full?: boolean;
  watch?: boolean;
  interval: string;
}

/** `sync`: incremental and bidirectional; once, or on a schedule with --watch. */
export const registerSync: RegisterCommand = (program, ctx) => {
  const cmd = program
    .command("sync")
    .description(
      "incremental, bidirectional sync of one job or all jobs; --watch repeats it every --interval until SIGINT/SIGTERM",
    )
    .option("-j, --job <name>", "the job to run (default: every job in the config)");
  configOption(cmd);
  cmd
    .option("--dry-run", "plan only: the same as `plan`")
    .option(
      "--full",
      "read everything this run (all of tinyPM, closed iterations too, and the whole target), so that deletions on either side are mirrored",
    )
    .option("--watch", "keep running, one sync every --interval")
    .option("--interval <duration>", "time between syncs with --watch (e.g. 30s, 5m, 1h)", "5m")
    .option("--json", "print each run's summary as one JSON object per line");
  writeRunOptions(cmd);
  reportOptions(cmd);
  logOptions(cmd).action(async (flags: SyncFlags) => {
    checkJsonAndFormat({ ...flags, formatGiven: cmd.getOptionValueSource("format") === "cli" });
    if (flags.watch !== true && cmd.getOptionValueSource("interval") === "cli") {
      throw new UsageError("--interval needs --watch.", {
        hint: "Add --watch, or drop --interval for a single sync.",
      });
    }
    const interval = parseDuration(flags.interval);
    const session = openConfig(ctx, flags.config, {
      ...flags,
      jobs: flags.job === undefined ? undefined : [flags.job],
    });
    if (flags.watch !== true) {
      settleRuns(ctx, await syncOnce(ctx, session, flags));
      return;
    }
    session.logger.info({ intervalMs: interval }, "watching: a sync every interval until stopped");
    await watchJobs(ctx, session, {
      intervalMs: interval,
      runJob: (resolved) => syncJob(ctx, session, resolved, flags),
      settle: (runs) => {
        settleRuns(ctx, runs);
      },
      policy: outagePolicyFromEnv(ctx.env),
    });
  });
};

/**
 * The watcher's outage backoff, from `TINYPM_SYNC_OUTAGE_BACKOFF` (`base,cap` durations, e.g.
 * `1s,5s`) when set — for tests and impatient operators — else the defaults.
 */
function outagePolicyFromEnv(env: CliContext["env"]): Parameters<typeof watchJobs>[2]["policy"] {
  const raw = env.TINYPM_SYNC_OUTAGE_BACKOFF;
  if (raw === undefined || raw === "") return undefined;
  const [base = "", cap = ""] = raw.split(",");
  return {
    ...DEFAULT_OUTAGE_POLICY,
    baseMs: parseDuration(base.trim()),
    capMs: parseDuration(cap.trim() === "" ? base.trim() : cap.trim()),
  };
}

async function syncJob(
  ctx: CliContext,
  session: ReturnType<typeof openConfig>,
  resolved: ReturnType<typeof openConfig>["loaded"]["jobs"][number],
  flags: SyncFlags,
): Promise<RunReport> {
  const run = await runConfiguredJob(ctx, session, resolved, {
    mode: "sync",
    ...writeRunSwitches(flags),
    fullScan: flags.full === true,
  });
  printRun(ctx, run, {
    json: flags.json,
    format: flags.format,
    out: flags.out,
    verbose: flags.verbose,
    estimate: durationEstimator(resolved),
  });
  return run;
}

async function syncOnce(
  ctx: CliContext,
  session: ReturnType<typeof openConfig>,
  flags: SyncFlags,
): Promise<RunReport[]> {
  const runs: RunReport[] = [];
  for (const resolved of session.loaded.jobs) {
    if (ctx.signal.aborted)
      throw new InterruptedError("Stopped before the next job started; state is consistent.", {
        hint: "Run the same command again to continue.",
      });
    const run = await syncJob(ctx, session, resolved, flags);
    runs.push(run);
  }
  return runs;
}
