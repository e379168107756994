import { Option, type Command } from "commander";
import { UsageError } from "../core/errors.js";

/** `--config FILE`, required by every job command. */
export function configOption(cmd: Command): Command {
  return cmd.requiredOption("-c, --config <file>", "the config file (see config.example.json)");
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
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(text.trim());
  if (!m) {
    throw new UsageError(`Invalid duration "${text}".`, {
      hint: "Use a number with a unit: 30s, 5m, 1h.",
    });
  }
  const n = Number(m[1]);
  const unit = m[2] ?? "s";
  const factor = unit === "ms" ? 1 : unit === "s" ? 1000 : unit === "m" ? 60_000 : 3_600_000;
  const ms = n * factor;
  if (ms < 1000)
    throw new UsageError(`The interval ${text} is shorter than one second.`, {
      hint: "Use at least 1s.",
    });
  return ms;
}
