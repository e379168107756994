import { z } from "zod";
import { StatusJson } from "../library/status.js";
import type { RunReport } from "../sync/engine.js";

// `status --json` is the library's `readStatus()`: its schema lives in src/library/status.ts.
export { jobStatusJson, runJson, StatusJson } from "../library/status.js";

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
        /** Linked items not read this run (closed iterations left out). */
        notRead: count.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type RunSummaryJson = z.infer<typeof RunSummaryJson>;

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
    ...((r.notRead ?? 0) > 0 && { notRead: r.notRead }),
  };
  return { runId: run.runId, job: run.job, summary: { ...run.summary }, apiCalls, tinypmRead };
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
