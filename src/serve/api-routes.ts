import { hostname } from "node:os";
import { processWorkerId } from "../core/worker-id.js";
import { z } from "zod";
import type { ConflictRecord, RunRecord, StateStore } from "../state/store.js";
import {
  conflictFieldsJson,
  conflictFieldsShape,
  runProcessJson,
  runProcessShape,
  workerProcessShape,
} from "../state/record-json.js";
import { workerProcesses } from "../state/worker-processes.js";
import { claimsByJob, JobClaimsApi } from "./claims-api.js";
import { scheduleLabel, DEFAULT_SCHEDULE } from "./schedule.js";
import type { FinishedRun, Service } from "./service.js";

const count = z.number().int().min(0);
const jsonValue = z.unknown().describe("The field's value (any JSON).");

const RunApi = z
  .strictObject({
    id: z.string(),
    job: z.string(),
    mode: z.enum(["plan", "migrate", "sync"]),
    outcome: z.enum(["running", "ok", "partial", "failed", "interrupted"]),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
    counts: z.record(z.string(), z.number()),
    ...runProcessShape(
      "The worker that ran it (as in /api/workers): pids repeat across hosts and containers, this does not.",
    ),
    triggers: z
      .array(z.enum(["startup", "schedule", "webhook", "manual", "deferred"]))
      .nullable()
      .describe("Why this service ran it (null: not a run of this process)."),
    items: z
      .array(z.string())
      .nullable()
      .describe("Target items the run was limited to (webhooks); null for the whole job."),
    report: z.string().nullable().describe("Path of its HTML report while the service keeps it."),
  })
  .describe("One run of a job.");

const ConflictApi = z
  .strictObject({
    id: count,
    job: z.string(),
    ...conflictFieldsShape(jsonValue),
  })
  .describe("An open field conflict: resolve it with POST /api/conflicts/{id} {take}.");

const JobApi = z
  .strictObject({
    name: z.string(),
    target: z.strictObject({ name: z.string(), type: z.enum(["github", "jira"]) }),
    schedule: z.string().describe("`every 5m` or `cron …`."),
    running: z.boolean(),
    activity: z
      .string()
      .nullable()
      .describe(
        "What the running run does now (`reading tinyPM · 12 requests · 5/24 stories read`); null when none runs here.",
      ),
    runningOn: z
      .string()
      .nullable()
      .describe("Another worker (`host pid N`) held the job's lease at this worker's last try."),
    pending: z.boolean().describe("A follow-up run is waiting."),
    requested: z
      .strictObject({ deliveries: count, since: z.string() })
      .nullable()
      .describe(
        "Deliveries recorded in the state while another worker held the job (as last read): the holder, or the next worker to take the job, runs it once more for all of them.",
      ),
    nextRun: z.string().nullable(),
    lastRun: RunApi.nullable(),
    lastError: z
      .strictObject({ at: z.string(), error: z.string() })
      .nullable()
      .describe(
        "This worker's newest run of the job, when it failed before it could be journalled (bad mapping, state or system unreachable at start) and is newer than lastRun; null otherwise.",
      ),
    lastSuccessAt: z.string().nullable(),
    items: z.record(z.string(), count).describe("Linked items by kind."),
    conflictsOpen: count,
    failuresParked: count,
    claims: JobClaimsApi,
  })
  .describe("A configured job and its state.");

const WorkerApi = z
  .strictObject({
    ...workerProcessShape,
    self: z.boolean().describe("This serve process."),
  })
  .describe("A process working on the state (a serve or a sync).");

/**
 * The documented JSON of /api/jobs, /api/runs, /api/conflicts and /api/workers
 * (schemas/serve-api.schema.json).
 */
export const ServeApiSchemas = {
  jobs: z.strictObject({ jobs: z.array(JobApi) }),
  runs: z.strictObject({ runs: z.array(RunApi) }),
  conflicts: z.strictObject({ conflicts: z.array(ConflictApi) }),
  workers: z.strictObject({ workers: z.array(WorkerApi) }),
};
export type JobApi = z.infer<typeof JobApi>;
export type RunApi = z.infer<typeof RunApi>;
export type ConflictApi = z.infer<typeof ConflictApi>;
export type WorkerApi = z.infer<typeof WorkerApi>;

/** How many runs /api/runs lists. */
const RUNS_LISTED = 50;

/**
 * This service's own record of a journalled run: by id, or — for a run that failed, whose id the
 * service never learnt — the failed run of the job whose time covers the journal's start.
 */
export function finishedRunOf(
  service: Service,
  r: { readonly id: string; readonly job: string; readonly startedAt: string },
): FinishedRun | undefined {
  return (
    service.findRun(r.id) ??
    service
      .finished(r.job)
      .find(
        (f) => f.runId === undefined && f.startedAt <= r.startedAt && r.startedAt <= f.finishedAt,
      )
  );
}

function runApi(service: Service, r: RunRecord): RunApi {
  const mine = finishedRunOf(service, r);
  return {
    id: r.id,
    job: r.job,
    mode: r.mode,
    outcome: r.outcome,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt ?? null,
    counts: { ...r.counts },
    ...runProcessJson(r),
    triggers: mine === undefined ? null : [...mine.triggers],
    items: mine?.items === undefined ? null : [...mine.items],
    report: mine?.report === undefined ? null : `/runs/${encodeURIComponent(r.id)}`,
  };
}

export function conflictApi(c: ConflictRecord): ConflictApi {
  return {
    id: c.id,
    job: c.job,
    ...conflictFieldsJson(c),
  };
}

export async function jobsApi(service: Service, state: StateStore): Promise<JobApi[]> {
  const jobs: JobApi[] = [];
  const claimsOf = await claimsByJob(service.jobs, state);
  for (const job of service.jobs) {
    const q = service.jobState(job.name);
    const recent = await state.runs({ job: job.name, limit: 20 });
    const last = recent[0];
    const success = recent.find((r) => r.outcome === "ok");
    jobs.push({
      name: job.name,
      target: { name: job.target.name, type: job.target.type },
      schedule: scheduleLabel(job.schedule ?? DEFAULT_SCHEDULE),
      running: q.running !== undefined,
      activity: q.activity ?? null,
      runningOn: q.runningOn ?? null,
      pending: q.pending !== undefined,
      requested: q.requested ?? null,
      nextRun: q.nextRun?.toISOString() ?? null,
      lastRun: last === undefined ? null : runApi(service, last),
      lastError: unjournalledFailure(service, job.name, last),
      lastSuccessAt: success?.finishedAt ?? null,
      items: { ...(await state.countLinksByKind(job.name)) },
      conflictsOpen: (await state.conflicts({ job: job.name, status: "open" })).length,
      failuresParked: (await state.failures(job.name)).length,
      claims: claimsOf(job),
    });
  }
  return jobs;
}

/** A failure of this process newer than the journal's last run, which it never reached. */
function unjournalledFailure(
  service: Service,
  job: string,
  last: RunRecord | undefined,
): { at: string; error: string } | null {
  const mine = service.finished(job)[0];
  if (mine === undefined || mine.runId !== undefined || mine.outcome !== "failed") return null;
  const lastAt = last === undefined ? 0 : Date.parse(last.finishedAt ?? last.startedAt);
  if (Date.parse(mine.finishedAt) < lastAt) return null;
  return { at: mine.finishedAt, error: mine.error ?? "unknown error" };
}

export async function runsApi(
  service: Service,
  state: StateStore,
  job?: string,
): Promise<RunApi[]> {
  const runs = await state.runs({ ...(job === undefined ? {} : { job }), limit: RUNS_LISTED });
  return runs.map((r) => runApi(service, r));
}

export async function conflictsApi(state: StateStore): Promise<ConflictApi[]> {
  return (await state.conflicts({ status: "open" })).map(conflictApi);
}

/** When this process started (ISO). */
const processStartedAt = new Date(Date.now() - Math.round(process.uptime() * 1000)).toISOString();

/**
 * Every process working on the state, oldest first, this one marked `self`. This process is
 * listed even when the state does not know it (SQLite between runs: nobody holds the file).
 */
export async function workersApi(service: Service, state: StateStore): Promise<WorkerApi[]> {
  const host = hostname();
  const listed = workerProcesses(await state.workers()).map((w) => ({
    ...w,
    jobs: [...w.jobs],
    self: w.host === host && w.pid === process.pid,
  }));
  if (listed.some((w) => w.self)) return listed;
  const now = new Date().toISOString();
  const running = service.jobs.filter((j) => service.jobState(j.name).running !== undefined);
  const self: WorkerApi = {
    id: processWorkerId(),
    host,
    pid: process.pid,
    startedAt: processStartedAt,
    heartbeatAt: now,
    silentMs: 0,
    alive: true,
    jobs: running.map((j) => j.name).sort(),
    self: true,
  };
  return [...listed, self].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}

const BASE = "https://github.com/tinypm-sync/tinypm-sync/schemas";

/** JSON Schema of the service's /api answers (schemas/serve-api.schema.json). */
export function serveApiJsonSchema(): Record<string, unknown> {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: `${BASE}/serve-api.schema.json`,
    title: "tinypm-sync serve /api answers",
    $defs: {
      jobs: z.toJSONSchema(ServeApiSchemas.jobs, { io: "output" }),
      runs: z.toJSONSchema(ServeApiSchemas.runs, { io: "output" }),
      conflicts: z.toJSONSchema(ServeApiSchemas.conflicts, { io: "output" }),
      workers: z.toJSONSchema(ServeApiSchemas.workers, { io: "output" }),
    },
  };
}
