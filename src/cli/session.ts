import type { ConfigSession } from "../api/job-session.js";
import { loadConfig, type LoadedConfig } from "../config/load.js";
import { createLogger, type Logger } from "../log/logger.js";
import type { CliContext } from "./context.js";
import { configPath } from "./options.js";
import { terminalOf } from "./terminal.js";

// Opening a job (trackers, lanes, state) is the library's too: src/api/job-session.ts.
export {
  keepStateConnections,
  openJob,
  openState,
  type ConfigSession,
  type JobSession,
} from "../api/job-session.js";

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
  const loaded = loadConfig(configPath(ctx, file), {
    env: ctx.env,
    jobs: flags.jobs,
    secrets: flags.secrets,
  });
  return { loaded, logger: sessionLogger(ctx, loaded, flags) };
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
