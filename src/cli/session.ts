import type { ConfigSession } from "../library/job-session.js";
import { readConfigFile, type LoadedConfig, type ResolvedJob } from "../config/load.js";
import { UsageError } from "../core/errors.js";
import { createLogger, type Logger } from "../log/logger.js";
import { writeLine, type CliContext } from "./context.js";
import { configPath } from "./options.js";
import { terminalOf } from "./terminal.js";

// Opening the state is the library's too (src/library/job-state.ts), and so is opening a job's
// connections (src/library/job-session.ts): imported from there by the commands that run jobs
// alone, so that a command that only reads the state loads no adapter.
export { keepStateConnections, openState } from "../library/job-state.js";
export type { ConfigSession } from "../library/job-session.js";

/** Global logging flags every job command accepts. */
export interface LogFlags {
  readonly logLevel?: string | undefined;
  readonly logFormat?: "json" | "pretty" | undefined;
}

/**
 * Loads the config (`--config`, else $TINYPM_SYNC_CONFIG, else ./tinypm-sync.json) and builds the
 * logger: flags win over the config's `log`; the format defaults to pretty on a terminal, JSON
 * lines otherwise.
 */
export function openConfig(
  ctx: CliContext,
  file: string | undefined,
  flags: LogFlags & { jobs?: string[] | undefined; secrets?: "require" | "optional" },
): ConfigSession {
  const loaded = readConfigFile(configPath(ctx, file), {
    env: ctx.env,
    jobs: flags.jobs,
    secrets: flags.secrets,
  });
  return { loaded, logger: sessionLogger(ctx, loaded, flags) };
}

/**
 * Opens the config for a command on one job: `--job NAME`, or — when it is left out — the
 * config's only job (said on stderr, so a reader knows which ran); with several jobs and no
 * `--job`, a usage error naming them.
 */
export function openOneJob(
  ctx: CliContext,
  file: string | undefined,
  flags: LogFlags & { job?: string | undefined; secrets?: "require" | "optional" },
): { session: ConfigSession; resolved: ResolvedJob } {
  const name = flags.job ?? onlyJob(ctx, file);
  const session = openConfig(ctx, file, { ...flags, jobs: [name] });
  const [resolved] = session.loaded.jobs;
  // readConfigFile throws for a name the config does not have: one job is there.
  if (resolved === undefined) throw new UsageError(`no job \`${name}\` in ${session.loaded.file}`);
  return { session, resolved };
}

/** The name of the config's only job (announced), or a usage error naming the jobs to choose. */
function onlyJob(ctx: CliContext, file: string | undefined): string {
  const path = configPath(ctx, file);
  // No job resolved: the file is checked, no secret is needed yet.
  const names = readConfigFile(path, { env: ctx.env, jobs: [] }).config.jobs.map((j) => j.name);
  const [only] = names;
  if (only !== undefined && names.length === 1) {
    writeLine(ctx.stderr, `job: ${only} (the only job in ${path}; --job was not given)`);
    return only;
  }
  throw new UsageError(
    `--job was not given and ${path} has ${names.length} jobs: ${names.join(", ")}`,
    {
      hint: `Name the one to run, e.g. \`--job ${only ?? "NAME"}\`.`,
    },
  );
}

/** The logger of a command: flags, then the config's `log`, then the terminal decide. */
export function sessionLogger(ctx: CliContext, loaded: LoadedConfig, flags: LogFlags): Logger {
  return createLogger({
    stream: terminalOf(ctx).logStream,
    level: flags.logLevel ?? loaded.config.log.level,
    format: flags.logFormat ?? loaded.config.log.format ?? defaultLogFormat(ctx),
    secrets: loaded.secrets,
  });
}

/** Pretty lines for people on a terminal, JSON lines for machines and files. */
export function defaultLogFormat(ctx: CliContext): "json" | "pretty" {
  return ctx.stderr.isTTY === true ? "pretty" : "json";
}
