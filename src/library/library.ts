import {
  readConfigFile,
  loadConfigObject,
  processEnv,
  type LoadedConfig,
  type ResolvedJob,
} from "../config/load.js";
import { ConfigError } from "../core/errors.js";
import { createLogger, type LogSink } from "../log/logger.js";
import type { RunReport } from "../sync/engine.js";
import type { SyncEvent } from "../sync/events.js";
import type { ConfigSession } from "./job-session.js";
import { runResolvedJob } from "./run-job.js";
import { statusOfLoaded, type StatusJson } from "./status.js";

/** A loaded config: the validated config with its jobs resolved, and the logger runs log to. */
export type SyncConfig = ConfigSession;

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /**
   * Where the secrets come from: the environment variables the config names (`tokenEnv`,
   * `emailEnv`). @default process.env
   */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Resolve only these jobs (and require only their secrets). @default every job */
  readonly jobs?: readonly string[] | undefined;
  /** A config object's relative paths (mappings, user map, state) resolve here. @default process.cwd() */
  readonly baseDir?: string | undefined;
  /**
   * Log lines (pino, secrets scrubbed): where they go and from which level (`trace` … `error`).
   * @default no log lines
   */
  readonly log?:
    | {
        readonly stream: LogSink;
        readonly level?: string | undefined;
        readonly format?: "json" | "pretty" | undefined;
      }
    | undefined;
}

/**
 * Loads and checks a config — a file path (JSON, as the CLI's `--config`) or an object of the same
 * shape — and resolves its jobs' secrets from `env`. Throws one `ConfigError` listing every
 * problem (each with its path in the config); nothing is opened or contacted.
 * @example const config = loadConfig("tinypm-sync.json", { env: process.env });
 */
export function loadConfig(source: string | object, opts: LoadConfigOptions = {}): SyncConfig {
  const env = opts.env ?? processEnv();
  const loaded =
    typeof source === "string"
      ? readConfigFile(source, { env, jobs: opts.jobs })
      : loadConfigObject(source, { env, jobs: opts.jobs, baseDir: opts.baseDir ?? process.cwd() });
  const logger = createLogger({
    stream: opts.log?.stream ?? { write: () => true },
    level: opts.log === undefined ? "silent" : (opts.log.level ?? loaded.config.log.level),
    format: opts.log?.format ?? loaded.config.log.format ?? "json",
    secrets: loaded.secrets,
  });
  return { loaded, logger };
}

/** What every run of a job may take. */
export interface RunOptions {
  /** Every run event as it happens: phases, progress, items created or updated, waits. */
  readonly onEvent?: ((event: SyncEvent) => void) | undefined;
  /** Aborting it stops the run between requests; the state stays consistent and a rerun resumes. */
  readonly signal?: AbortSignal | undefined;
}

/** Options of {@link planJob}. */
export interface PlanOptions extends RunOptions {
  /** Plan what a migration (one-way copy) would do instead of a sync. @default false */
  readonly migrate?: boolean | undefined;
}

/** Options of {@link runJob}. */
export interface RunJobOptions extends RunOptions {
  /** `sync` (incremental, both ways as configured) or `migrate` (one-way copy). @default "sync" */
  readonly mode?: "sync" | "migrate" | undefined;
  /** Syncs: read all of tinyPM this run, closed iterations too (`sync --full`). */
  readonly fullScan?: boolean | undefined;
  /** Write missing or damaged hidden markers back now (`sync --repair-markers`). */
  readonly repairMarkers?: boolean | undefined;
  /** Let the run delete or close more linked items than the job's `maxDeletes` (`--allow-deletes`). */
  readonly allowDeletes?: boolean | undefined;
}

function jobOf(config: SyncConfig, name: string): ResolvedJob {
  const job = config.loaded.jobs.find((j) => j.job.name === name);
  if (job !== undefined) return job;
  const all = config.loaded.config.jobs.map((j) => j.name);
  const known = all.includes(name);
  throw new ConfigError(
    known
      ? `Job "${name}" was not loaded: the config was loaded for ${config.loaded.jobs.map((j) => `"${j.job.name}"`).join(", ") || "no job"} only.`
      : `The config ${config.loaded.file} has no job named "${name}".`,
    {
      hint: known
        ? "Load the config without `jobs`, or name this job in it."
        : `Valid jobs: ${all.join(", ") || "none"}.`,
    },
  );
}

/**
 * A dry run of a job (the CLI's `plan`): reads both sides and returns what a sync (or, with
 * `migrate`, a migration) would do — every action, field by field, and the API calls it would take.
 * Writes nothing to any system or to the state. `toReport(run)` turns it into the report data
 * every format renders.
 */
export function planJob(
  config: SyncConfig,
  job: string,
  opts: PlanOptions = {},
): Promise<RunReport> {
  return runResolvedJob(config, jobOf(config, job), {
    mode: opts.migrate === true ? "migrate" : "sync",
    dryRun: true,
    onEvent: opts.onEvent,
    signal: opts.signal,
  });
}

/**
 * Runs a job (the CLI's `sync` or `migrate`): reads, plans, applies, records links and the
 * run in the state. Resolves with the run's report when the run finished, also when some items
 * were parked or are in conflict (see `summary`); rejects with a `SyncError` when the run stopped.
 */
export function runJob(
  config: SyncConfig,
  job: string,
  opts: RunJobOptions = {},
): Promise<RunReport> {
  return runResolvedJob(config, jobOf(config, job), {
    mode: opts.mode ?? "sync",
    dryRun: false,
    fullScan: opts.fullScan,
    repairMarkers: opts.repairMarkers,
    allowDeletes: opts.allowDeletes,
    onEvent: opts.onEvent,
    signal: opts.signal,
  });
}

/**
 * Every job's status from the state, SQLite file or PostgreSQL (the CLI's `status --json`, schema
 * `schemas/status.schema.json`), read without locking or writing it. Resolves once read.
 */
export function readStatus(config: SyncConfig): Promise<StatusJson> {
  return statusOfLoaded(config.loaded);
}

/** What a run planned: its actions (create, update, adopt, delete, skip), field by field. */
export type Plan = RunReport["plan"];
export type PlanAction = Plan["actions"][number];
/** What a run read of tinyPM: everything, or which tiers (sections) and why. */
export type TinypmReadInfo = RunReport["tinypmRead"];

export type { LoadedConfig, ResolvedJob };
