import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunSummaryJson } from "../../src/cli/json-output.js";
import { until } from "../reliability/until.js";
import { jobTarget, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess, startCliProcess } from "./spawn.js";

/**
 * `undo` SIGKILLed once its removals have begun, then run again: every item the migration
 * created is deleted, each exactly once (GitHub: through GraphQL deleteIssue), none twice, and a
 * third run does nothing.
 */
let servers: Servers;
let config: string;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=6,tasks=2,comments=0");
  config = writeConfig(tmp.dir, servers);
}, 60_000);
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

/** Issue deletions the sandbox answered (Jira: `DELETE …/issue/…`; GitHub: GraphQL requests). */
function issueDeletes(job: "gh" | "jr"): number {
  const routes = (job === "gh" ? servers.github : servers.jira).stats().byRoute;
  return Object.entries(routes)
    .filter(([route]) =>
      job === "gh" ? route === "POST /graphql" : /^DELETE .*\/issue\/:[^/]+$/.test(route),
    )
    .reduce((n, [, count]) => n + count, 0);
}

const args = (...a: string[]): string[] => [...a, "--config", config, "--log-level", "warn"];
const cli = (...a: string[]) => runCliProcess(args(...a), { env: { ...servers.env } });

describe.each(["gh", "jr"] as const)("undo of job %s killed half-way", (job) => {
  it("finishes on the rerun without removing anything twice", async () => {
    const migrated = await cli("migrate", "--job", job, "--json");
    expect(migrated.code).toBe(0);
    const run = RunSummaryJson.parse(JSON.parse(migrated.stdout));
    expect(run.summary.created).toBe(18);
    const sandbox = job === "gh" ? servers.github : servers.jira;
    const deletesBefore = issueDeletes(job);
    const writesBefore = sandbox.stats().writes;

    const proc = startCliProcess(args("undo", "--job", job, "--run", run.runId), {
      env: { ...servers.env },
    });
    await until(
      "the undo's first removals",
      () => Promise.resolve(sandbox.stats().writes >= writesBefore + 3 ? true : undefined),
      60_000,
      5,
    );
    proc.kill("SIGKILL");
    const killed = await proc.done;
    expect(killed.code).toBeNull();

    const rerun = await cli("undo", "--job", job, "--run", run.runId, "--json");
    expect(rerun.code).toBe(0);
    const done = JSON.parse(rerun.stdout) as { summary: { removed: number; kept: number } };
    expect(done.summary.kept).toBe(0);
    expect(done.summary.removed).toBeGreaterThan(0);
    expect(done.summary.removed).toBeLessThan(18);

    const target = jobTarget(servers, job);
    try {
      const left: { status: string; undone?: string | undefined }[] = [];
      for await (const i of target.list({}))
        left.push({ status: i.status, undone: i.marker?.undone });
      // All deleted, each once (the rerun found the ones deleted before the kill gone): on
      // GitHub through GraphQL deleteIssue (the token is an admin's).
      const deleted = issueDeletes(job) - deletesBefore;
      expect({ left, deleted }).toEqual({ left: [], deleted: 18 });
    } finally {
      await target.close();
    }
    const third = await cli("undo", "--job", job, "--run", run.runId, "--json");
    expect(third.code).toBe(0);
    expect(JSON.parse(third.stdout)).toMatchObject({ summary: { removed: 0, kept: 0 } });
  }, 180_000);
});
