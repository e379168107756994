/**
 * tinypm-sync as a library (docs/library.md): load a config, plan or run a job, read the status —
 * the same functions the CLI runs, without printing anything.
 * @example
 * import { loadConfig, planJob, runJob, readStatus, toReport } from "tinypm-sync";
 * // A migration to rehearse, review, apply, check and take back: savePlan, applyPlan,
 * // verifyJob, undoRun (docs/library.md).
 * const config = loadConfig("tinypm-sync.json");
 * const plan = await planJob(config, "widgets");
 * const run = await runJob(config, "widgets");
 */
export {
  applyPlan,
  loadConfig,
  planJob,
  readStatus,
  runJob,
  savePlan,
  undoRun,
  verifyJob,
  type ApplyResult,
  type LoadConfigOptions,
  type LoadedConfig,
  type Plan,
  type PlanAction,
  type PlanOptions,
  type ResolvedJob,
  type RunJobOptions,
  type RunOptions,
  type SavedPlanFile,
  type SyncConfig,
  type TinypmReadInfo,
  type UndoOptions,
  type UndoReport,
  type VerifyReport,
} from "./library/library.js";
export { StatusJson } from "./library/status.js";
export { renderReport, type RenderOptions } from "./report/render.js";
export { toReport } from "./sync/report-data.js";
export {
  AuthError,
  ConfigError,
  ConflictError,
  ConflictResolvedError,
  ExitCode,
  exitCodeFor,
  InternalError,
  InterruptedError,
  MappingError,
  MassDeleteError,
  NotFoundError,
  PayloadInvalidError,
  PermissionError,
  PlanMismatchError,
  PlanStaleError,
  RateLimitError,
  RemoteUnavailableError,
  StateError,
  SyncError,
  UsageError,
  ValidationError,
  type ErrorCode,
  type ExitCodeValue,
  type RemoteContext,
  type ValidationIssue,
} from "./core/errors.js";
export type {
  Comment,
  ItemKind,
  Iteration,
  SystemName,
  TimeEntry,
  UserRef,
  WorkItem,
} from "./core/model.js";
export type { ConfigInput, ParsedConfig } from "./config/schema.js";
export type { RunMode, RunReport } from "./sync/engine.js";
export type { ApiUse, RunSummary, SyncEvent } from "./sync/events.js";
export type { Report, ReportFormat } from "./report/types.js";
