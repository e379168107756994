import { z } from "zod";
import type { LoadedConfig } from "../config/load.js";
import type {
  ClaimRecord,
  ConflictRecord,
  FailureRecord,
  RunRecord,
  StateData,
} from "../state/store.js";
import { notedCreationCount } from "../sync/undo/creations.js";
import {
  conflictFieldsJson,
  conflictFieldsShape,
  runProcessJson,
  runProcessShape,
  workerProcessShape,
} from "../state/record-json.js";
import { workerProcesses } from "../state/worker-processes.js";
import { openState } from "./job-state.js";
import { effectiveOutcome, runDurationMs, runExitCode, succeeded } from "./run-outcome.js";

const count = z.number().int().min(0);
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
    ...runProcessShape(
      "The worker that ran it: the PostgreSQL worker's id (as in workers), or host:pid:start on SQLite. Pids repeat across hosts and containers; this does not. Null: journalled before it was kept.",
    ),
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
    ...conflictFieldsShape(jsonValue),
  })
  .strict();

const ClaimJson = z
  .object({
    targetId: z.string(),
    kind,
    location: z.string().describe("The shared target: `github:host/owner/repo`, `jira:host/KEY`."),
    claimedAt: z.string(),
    status: z
      .enum(["importing", "unlinked"])
      .describe(
        "importing: the import's create waits to be settled by the job's next run; unlinked: its link was removed since, the item stays the job's.",
      ),
  })
  .strict();

/** The import claims of a job (docs/sync.md, Shared targets). */
const ClaimsJson = z
  .object({
    held: count.describe("Person's items of a shared target this job claimed to import."),
    imported: count.describe("Those it imported (linked)."),
    open: z.array(ClaimJson).describe("The others, oldest first."),
  })
  .strict();

/** A process working on the state (docs/state.md, Workers). */
export const WorkerJson = z.object(workerProcessShape).strict();

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
          claims: ClaimsJson,
        })
        .strict(),
    ),
    workers: z
      .array(WorkerJson)
      .describe(
        "The processes working on the state, oldest first: PostgreSQL, every worker heard from in the last hour; SQLite, the one process holding the file, if any.",
      ),
  })
  .strict();
export type StatusJson = z.infer<typeof StatusJson>;

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
    ...runProcessJson(r),
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
  /** The import claims the job holds (none: it shares no target, or imported nothing). */
  claims?: readonly ClaimRecord[] | undefined;
}): StatusJson["jobs"][number] {
  const claims = o.claims ?? [];
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
    conflicts: o.conflicts.map((c) => ({ id: c.id, ...conflictFieldsJson(c) })),
    claims: {
      held: claims.length,
      imported: claims.filter((c) => c.status === "imported").length,
      open: claims.flatMap((c) =>
        c.status === "imported"
          ? []
          : [
              {
                targetId: c.targetId,
                kind: c.kind,
                location: c.location,
                claimedAt: c.claimedAt,
                status: c.status,
              },
            ],
      ),
    },
  };
}

/** How far back the status looks for the last successful run. */
const SUCCESS_LOOKBACK = 500;

/**
 * The status of every job of a config, read from its state file without locking or writing it:
 * links, the last runs (a run whose process is gone reads `interrupted`), the last successful
 * run, a run going on now, parked failures and open conflicts. `status --json` prints this.
 */
/**
 * A run that never ended (killed outright, or going on now) journalled no counts: its creates
 * are counted from the notes it made as it went (undo/creations.ts), which `undo --run` takes,
 * as `createdNoted` — at least that many: a run killed outright may have made a few more, which
 * the job's next run finds and links.
 */
async function withNotedCreates(
  state: Pick<StateData, "getCheckpoint">,
  job: string,
  runs: readonly RunRecord[],
): Promise<RunRecord[]> {
  const out: RunRecord[] = [];
  for (const r of runs) {
    const noted = r.counts.created === undefined ? await notedCreationCount(state, job, r.id) : 0;
    out.push(noted === 0 ? r : { ...r, counts: { ...r.counts, createdNoted: noted } });
  }
  return out;
}

export async function statusOfLoaded(loaded: LoadedConfig): Promise<StatusJson> {
  const state = await openState(loaded, true);
  try {
    const livePid = (await state.liveHolder())?.pid;
    const jobs: StatusJson["jobs"] = [];
    for (const job of loaded.config.jobs) {
      const recent = await state.runs({ job: job.name, limit: SUCCESS_LOOKBACK });
      jobs.push(
        jobStatusJson({
          job: job.name,
          target: job.target,
          links: await state.countLinks(job.name),
          runs: await withNotedCreates(state, job.name, recent.slice(0, 5)),
          lastSuccess: recent.find((r) => succeeded(r)),
          livePid,
          failures: await state.failures(job.name),
          conflicts: await state.conflicts({ job: job.name, status: "open" }),
          claims: await state.claimsOf(job.name),
        }),
      );
    }
    const workers = workerProcesses(await state.workers()).map((w) => ({
      ...w,
      jobs: [...w.jobs],
    }));
    return { state: loaded.statePath, jobs, workers };
  } finally {
    await state.close();
  }
}
