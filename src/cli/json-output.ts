import { z } from "zod";
import type { ConflictRecord, FailureRecord, RunRecord } from "../state/sqlite-store.js";
import type { RunReport } from "../sync/engine.js";
import { effectiveOutcome, runDurationMs, runExitCode } from "./run-words.js";

const count = z.number().int().min(0);

/** Per-system API use in `--json` outputs. */
export const ApiCallsJson = z.record(
  z.string(),
  z.object({ reads: count, writes: count, retries: count, rateLimitWaits: count }).strict(),
);

/** The `--json` line of `migrate` and `sync` (architecture.md, CLI contract). */
export const RunSummaryJson = z
  .object({
    runId: z.string().min(1),
    job: z.string().min(1),
    summary: z
      .object({
        created: count,
        updated: count,
        unchanged: count,
        conflicts: count,
        failed: count,
        deleted: count,
      })
      .strict(),
    apiCalls: ApiCallsJson,
    /** What was read of tinyPM: everything, or which tiers. */
    tinypmRead: z
      .object({
        complete: z.boolean(),
        fullReason: z.string().optional(),
        read: z.array(z.string()),
        skipped: z.array(z.string()),
        fetched: count,
      })
      .strict()
      .optional(),
  })
  .strict();
export type RunSummaryJson = z.infer<typeof RunSummaryJson>;

const kind = z.enum(["story", "task"]);
// A field value as stored (any JSON value).
const jsonValue = z.unknown();

const RunJson = z
  .object({
    id: z.string(),
    mode: z.enum(["plan", "migrate", "sync"]),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
    outcome: z.enum(["ok", "failed", "interrupted", "partial", "running"]),
    counts: z.record(z.string(), z.number()),
    durationMs: count.nullable(),
    /** The exit code the run's command ended with as far as the state knows; null while running. */
    exitCode: z.number().int().nullable(),
  })
  .strict();

const FailureJson = z
  .object({
    id: count,
    kind,
    tinypmId: z.string().nullable(),
    targetId: z.string().nullable(),
    side: z.enum(["tinypm", "target"]),
    code: z.string(),
    message: z.string(),
    attempts: count,
    firstSeenAt: z.string(),
    lastSeenAt: z.string(),
  })
  .strict();

const ConflictJson = z
  .object({
    id: count,
    kind,
    tinypmId: z.string(),
    targetId: z.string(),
    field: z.string(),
    baseValue: jsonValue,
    tinypmValue: jsonValue,
    targetValue: jsonValue,
    createdAt: z.string(),
  })
  .strict();

/** The object `status --json` prints. */
export const StatusJson = z
  .object({
    state: z.string(),
    jobs: z.array(
      z
        .object({
          job: z.string(),
          target: z.string(),
          links: count,
          lastRuns: z.array(RunJson),
          lastSuccess: RunJson.nullable(),
          running: RunJson.nullable(),
          failures: z.array(FailureJson),
          conflicts: z.array(ConflictJson),
        })
        .strict(),
    ),
  })
  .strict();
export type StatusJson = z.infer<typeof StatusJson>;

/** The `--json` summary object of one run. */
export function runSummaryJson(run: RunReport): RunSummaryJson {
  const apiCalls: RunSummaryJson["apiCalls"] = {};
  for (const [system, c] of Object.entries(run.apiCalls)) {
    apiCalls[system] = {
      reads: c.reads,
      writes: c.writes,
      retries: c.retries,
      rateLimitWaits: c.rateLimitWaits,
    };
  }
  const r = run.tinypmRead;
  const tinypmRead = {
    complete: r.complete,
    ...(r.fullReason === undefined ? {} : { fullReason: r.fullReason }),
    read: r.sections.filter((s) => s.reason !== "skipped").map((s) => s.name),
    skipped: r.sections.filter((s) => s.reason === "skipped").map((s) => s.name),
    fetched: r.fetched,
  };
  return { runId: run.runId, job: run.job, summary: { ...run.summary }, apiCalls, tinypmRead };
}

type RunJson = z.infer<typeof RunJson>;

/** A run as `status --json` shows it; `running` only while its process (`livePid`) is alive. */
export function runJson(r: RunRecord, livePid: number | undefined): RunJson {
  const outcome = effectiveOutcome(r, livePid);
  return {
    id: r.id,
    mode: r.mode,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt ?? null,
    outcome,
    counts: { ...r.counts },
    durationMs: runDurationMs(r),
    exitCode: runExitCode(outcome, r.counts),
  };
}

/** One job's entry in `status --json`. */
export function jobStatusJson(o: {
  job: string;
  target: string;
  links: number;
  runs: readonly RunRecord[];
  /** The last run that ended with exit 0, if any. */
  lastSuccess?: RunRecord | undefined;
  /** The pid of the live process holding the state file, if any. */
  livePid?: number | undefined;
  failures: readonly FailureRecord[];
  conflicts: readonly ConflictRecord[];
}): StatusJson["jobs"][number] {
  const running = o.runs.find((r) => effectiveOutcome(r, o.livePid) === "running");
  return {
    job: o.job,
    target: o.target,
    links: o.links,
    lastRuns: o.runs.map((r) => runJson(r, o.livePid)),
    lastSuccess: o.lastSuccess === undefined ? null : runJson(o.lastSuccess, o.livePid),
    running: running === undefined ? null : runJson(running, o.livePid),
    failures: o.failures.map((f) => ({
      id: f.id,
      kind: f.kind,
      tinypmId: f.tinypmId ?? null,
      targetId: f.targetId ?? null,
      side: f.side,
      code: f.code,
      message: f.message,
      attempts: f.attempts,
      firstSeenAt: f.firstSeenAt,
      lastSeenAt: f.lastSeenAt,
    })),
    conflicts: o.conflicts.map((c) => ({
      id: c.id,
      kind: c.kind,
      tinypmId: c.tinypmId,
      targetId: c.targetId,
      field: c.field,
      baseValue: c.baseValue,
      tinypmValue: c.tinypmValue,
      targetValue: c.targetValue,
      createdAt: c.createdAt,
    })),
  };
}

const BASE = "https://github.com/tinypm-sync/tinypm-sync/schemas";

/** JSON Schema of the `migrate`/`sync --json` line (schemas/run-summary.schema.json). */
export function runSummaryJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(RunSummaryJson, { io: "output" }),
    $id: `${BASE}/run-summary.schema.json`,
    title: "tinypm-sync migrate/sync --json summary",
  };
}

/** JSON Schema of `status --json` (schemas/status.schema.json). */
export function statusJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(StatusJson, { io: "output" }),
    $id: `${BASE}/status.schema.json`,
    title: "tinypm-sync status --json",
  };
}
