import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { Option, type Command } from "commander";
import { UsageError } from "../core/errors.js";
import type { ReportFormat } from "../report/types.js";
import type { CliContext } from "./context.js";
import { durationMs } from "../core/duration.js";
import { reportDetail } from "./run-report.js";

/** The config file name looked for in the working directory when neither flag nor env var says. */
export const DEFAULT_CONFIG_FILE = "tinypm-sync.json";
/** The environment variable naming the config file when `--config` is not given. */
export const CONFIG_ENV = "TINYPM_SYNC_CONFIG";

/** `--config FILE`: every job command; defaults to $TINYPM_SYNC_CONFIG, then ./tinypm-sync.json. */
export function configOption(cmd: Command): Command {
  return cmd.option(
    "-c, --config <file>",
    `the config file (default: $${CONFIG_ENV}, else ./${DEFAULT_CONFIG_FILE}; see config.example.json)`,
  );
}

/** The config file a command uses: `--config`, else $TINYPM_SYNC_CONFIG, else ./tinypm-sync.json. */
export function configPath(ctx: Pick<CliContext, "env" | "cwd">, flag: string | undefined): string {
  if (flag !== undefined) return flag;
  const fromEnv = ctx.env[CONFIG_ENV];
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  const local = resolve(ctx.cwd, DEFAULT_CONFIG_FILE);
  if (existsSync(local)) return local;
  throw new UsageError(
    `No config file: --config was not given, $${CONFIG_ENV} is ${fromEnv === "" ? "empty" : "not set"}, and there is no ${DEFAULT_CONFIG_FILE} in ${ctx.cwd}.`,
    {
      hint: `Pass --config <file>, export ${CONFIG_ENV}=<file>, or create ./${DEFAULT_CONFIG_FILE} (config.example.json shows the format).`,
    },
  );
}

/** `--format` and `--out`: how and where a run's report is written (plan, migrate, sync). */
export function reportOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option("-f, --format <format>", "report format")
        .choices(["text", "json", "markdown", "html"])
        .default("text"),
    )
    .option("-o, --out <file>", "write the report to a file instead of stdout");
}

/** The flags of `configOption`, `reportOptions` and `logOptions`, as commander parses them. */
export interface JobCommandFlags {
  config?: string;
  format: ReportFormat;
  out?: string;
  logLevel?: string;
  logFormat?: "json" | "pretty";
  verbose?: boolean;
}

/** The flags of the commands that write (migrate, sync): theirs and `writeRunOptions`'. */
export interface WriteRunFlags extends JobCommandFlags {
  dryRun?: boolean;
  json?: boolean;
  repairMarkers?: boolean;
  waitForLimits?: boolean;
  allowDeletes?: boolean;
}

/**
 * `--wait-for-limits`, `--repair-markers` and `--allow-deletes`: the commands that write
 * (migrate, sync).
 */
export function writeRunOptions(cmd: Command): Command {
  return cmd
    .option(
      "--wait-for-limits",
      "when a rate limit would hold the run back more than 10 minutes, wait (default: stop with exit 3, naming when to rerun)",
    )
    .option(
      "--repair-markers",
      "write missing or damaged hidden blocks (markers) back now, not only on each item's next write",
    )
    .option(
      "--allow-deletes",
      "let this run delete or close more linked items than the job's maxDeletes (default: stop with exit 3, mass_delete, nothing written)",
    );
}

/** What a run of migrate or sync takes from its flags. */
export function writeRunSwitches(flags: WriteRunFlags): {
  dryRun: boolean;
  repairMarkers: boolean;
  waitForLimits: boolean;
  allowDeletes: boolean;
  report: "full" | "summary";
} {
  return {
    report: reportDetail(flags),
    dryRun: flags.dryRun === true,
    repairMarkers: flags.repairMarkers === true,
    waitForLimits: flags.waitForLimits === true,
    allowDeletes: flags.allowDeletes === true,
  };
}

/** Logging flags shared by the job commands. Logs go to stderr; stdout is for reports. */
export function logOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option("--log-level <level>", "log level").choices([
        "fatal",
        "error",
        "warn",
        "info",
        "debug",
        "trace",
        "silent",
      ]),
    )
    .addOption(
      new Option("--log-format <format>", "log format: json lines, or pretty for people").choices([
        "json",
        "pretty",
      ]),
    )
    .option("--verbose", "show every item in reports and the cause chain of errors");
}

/** Parses a duration such as `90s`, `5m`, `1h` into milliseconds. */
export function parseDuration(text: string): number {
  const ms = durationMs(text);
  if (ms === undefined) {
    throw new UsageError(`Invalid duration "${text}".`, {
      hint: "Use a number with a unit: 30s, 5m, 1h.",
    });
  }
  if (ms < 1000)
    throw new UsageError(`The interval ${text} is shorter than one second.`, {
      hint: "Use at least 1s.",
    });
  return ms;
}
