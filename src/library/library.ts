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
import type { VerifyReport } from "../report/verify-types.js";
import type { SavedPlanFile } from "../sync/saved-plan/plan-file.js";
import type { UndoReport } from "../sync/undo/undo-types.js";
import { applySavedPlan, type ApplyResult } from "./apply-job.js";
import type { ConfigSession } from "./job-session.js";
import { runResolvedJob } from "./run-job.js";
import { readSavedPlan, savedPlanFor, writeSavedPlan } from "./save-plan.js";
import { undoResolvedJob } from "./undo-job.js";
import { verifyResolvedJob } from "./verify-job.js";
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
  /**
   * Syncs: read everything this run — all of tinyPM, closed iterations too, and the whole
   * target — so that deletions on either side show (`sync --full`).
   */
  readonly fullScan?: boolean | undefined;
  /** Write missing or damaged hidden markers back now (`sync --repair-markers`). */
  readonly repairMarkers?: boolean | undefined;
  /** Let the run delete or close more linked items than the job's `maxDeletes` (`--allow-deletes`). */
  readonly allowDeletes?: boolean | undefined;
  /**
   * `summary`: the caller reads the report's summary, counts and events alone, so the run lets
   * go of each item once written (the CLI's `--json`); the report then has no actions
   * (`planKept: false`) and `toReport` refuses it. @default "full"
   */
  readonly report?: "full" | "summary" | undefined;
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
    report: opts.report,
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

/**
 * A dry run of a job, as {@link planJob}, whose plan is also written to `file` (the CLI's
 * `plan --save FILE`): JSON, versioned, with the digests of what its actions read; no secret.
 * {@link applyPlan} carries it out.
 */
export async function savePlan(
  config: SyncConfig,
  job: string,
  file: string,
  opts: PlanOptions = {},
): Promise<{ readonly run: RunReport; readonly plan: SavedPlanFile }> {
  const resolved = jobOf(config, job);
  const run = await planJob(config, job, opts);
  const plan = await savedPlanFor(config, resolved, run);
  writeSavedPlan(file, plan);
  return { run, plan };
}

/**
 * Carries out exactly the plan {@link savePlan} wrote to `file` (the CLI's `apply`). Rejects
 * with `PlanMismatchError` (a plan of another config, job or state) or `PlanStaleError` (what an
 * action touches changed since, or the job ran since), writing nothing. Resumable: after a crash,
 * applying the same file again finishes it; a plan applied in full resolves `already-applied`.
 */
export function applyPlan(
  config: SyncConfig,
  file: string,
  opts: RunOptions = {},
): Promise<ApplyResult> {
  const plan = readSavedPlan(file);
  return applySavedPlan(config, jobOf(config, plan.job), plan, {
    file,
    signal: opts.signal,
    onEvent: opts.onEvent,
  });
}

/**
 * Compares both sides of a job (the CLI's `verify`): every linked pair field by field through
 * the mapping, and the items linked on neither side. Writes nothing anywhere, not even the
 * state. `report.summary.different` and the unlinked lists say whether all is in step.
 */
export function verifyJob(
  config: SyncConfig,
  job: string,
  opts: RunOptions = {},
): Promise<VerifyReport> {
  return verifyResolvedJob(config, jobOf(config, job), opts);
}

/** Options of {@link undoRun}. */
export interface UndoOptions extends RunOptions {
  /** List what would be removed and kept; write nothing. @default false */
  readonly dryRun?: boolean | undefined;
}

/**
 * Takes back what one run of a job created (the CLI's `undo`; run ids as {@link readStatus}
 * lists them): its items on the created side and their links. Items a person changed since are
 * kept and listed in `kept` (the CLI exits 4 then). Running it again does nothing.
 */
export function undoRun(
  config: SyncConfig,
  job: string,
  runId: string,
  opts: UndoOptions = {},
): Promise<UndoReport> {
  return undoResolvedJob(config, jobOf(config, job), {
    runId,
    dryRun: opts.dryRun === true,
    signal: opts.signal,
    onEvent: opts.onEvent,
  });
}

/** What a run planned: its actions (create, update, adopt, delete, skip), field by field. */
export type Plan = RunReport["plan"];
export type PlanAction = Plan["actions"][number];
/** What a run read of tinyPM: everything, or which tiers (sections) and why. */
export type TinypmReadInfo = RunReport["tinypmRead"];

export type { ApplyResult, LoadedConfig, ResolvedJob, SavedPlanFile, UndoReport, VerifyReport };
