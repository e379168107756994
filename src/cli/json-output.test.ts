import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  RunSummaryJson,
  StatusJson,
  jobStatusJson,
  runSummaryJsonSchema,
  statusJsonSchema,
} from "./json-output.js";

const committed = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../schemas/${name}`, import.meta.url), "utf8")) as unknown;

describe("the --json output schemas", () => {
  it("schemas/run-summary.schema.json is up to date (run `npm run build && npm run schemas`)", () => {
    expect(committed("run-summary.schema.json")).toEqual(runSummaryJsonSchema());
  });

  it("schemas/status.schema.json is up to date (run `npm run build && npm run schemas`)", () => {
    expect(committed("status.schema.json")).toEqual(statusJsonSchema());
  });

  it("a run summary has exactly the contract's keys", () => {
    const summary = { created: 1, updated: 0, unchanged: 2, conflicts: 0, failed: 0, deleted: 0 };
    const ok = {
      runId: "r1",
      job: "w",
      summary,
      apiCalls: { github: { reads: 1, writes: 2, retries: 0, rateLimitWaits: 0 } },
    };
    expect(RunSummaryJson.safeParse(ok).success).toBe(true);
    expect(RunSummaryJson.safeParse({ ...ok, extra: 1 }).success).toBe(false);
  });

  it("a job's status turns missing values into null, never drops keys", () => {
    const job = jobStatusJson({
      job: "w",
      target: "github",
      links: 0,
      runs: [
        {
          id: "r",
          job: "w",
          mode: "sync",
          pid: 1,
          startedAt: "2026-01-01T00:00:00.000Z",
          finishedAt: undefined,
          outcome: "running",
          counts: {},
          apiCalls: {},
        },
      ],
      failures: [],
      conflicts: [],
    });
    expect(job.lastRuns[0]?.finishedAt).toBeNull();
    const parsed = StatusJson.safeParse(
      JSON.parse(JSON.stringify({ state: "s.db", jobs: [job], workers: [] })),
    );
    expect(parsed.success).toBe(true);
  });
});
