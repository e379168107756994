import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunSummaryJson } from "../../src/cli/json-output.js";
import { openState } from "../../src/state/open-state.js";
import { readCreations } from "../../src/sync/undo/creations.js";
import { until } from "../reliability/until.js";
import { jobTarget, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess, startCliProcess } from "./spawn.js";

/**
 * A migration SIGKILLed once it has created some issues never records its creations at its end:
 * each create is noted as it is made, and the rerun that finishes the migration records the
 * creates it settled (made by the killed run, never confirmed). Undoing the killed run and then
 * the rerun removes every issue the migration made, each exactly once, and keeps none.
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

const args = (...a: string[]): string[] => [...a, "--config", config, "--log-level", "warn"];
const cli = (...a: string[]) => runCliProcess(args(...a), { env: { ...servers.env } });

/**
 * The id of the job's run once it has noted creates in the state and the first of them is linked
 * (its group of confirmations committed): the killed run then owns some linked items for sure.
 */
async function runWithNotes(job: string): Promise<string | undefined> {
  const state = await openState(
    { backend: "sqlite", path: join(tmp.dir, "state.db") },
    { readOnly: true },
  ).catch(() => undefined); // not made yet
  if (state === undefined) return undefined;
  try {
    let linked = false;
    for await (const _ of state.links(job, "story")) linked = true;
    if (!linked) return undefined;
    for (const r of await state.runs({ job }))
      if ((await state.getCheckpoint(job, `created-by:${r.id}#0`)) !== undefined) return r.id;
    return undefined;
  } finally {
    await state.close();
  }
}

/** The creates a run noted in the state as it went, read past the CLI. */
async function notedCount(runId: string): Promise<number> {
  const state = await openState(
    { backend: "sqlite", path: join(tmp.dir, "state.db") },
    { readOnly: true },
  );
  try {
    return (await readCreations(state, "jr", runId))?.length ?? 0;
  } finally {
    await state.close();
  }
}

describe("undo of a migration killed outright", () => {
  it("removes what the killed run and its rerun created, each once", async () => {
    const proc = startCliProcess(args("migrate", "--job", "jr"), { env: { ...servers.env } });
    const killedRun = await until(
      "the migration's first noted creates",
      () => runWithNotes("jr"),
      60_000,
      5,
    );
    proc.kill("SIGKILL");
    expect((await proc.done).code).toBeNull();

    // `status` counts the killed run's creates from its notes (what `undo --run` takes back): at
    // least that many, since the notes of its last moments may not have been written.
    const noted = await notedCount(killedRun);
    expect(noted).toBeGreaterThan(0);
    const status = await cli("status", "--json");
    expect(status.code).toBe(0);
    const runs = (
      JSON.parse(status.stdout) as {
        jobs: { job: string; lastRuns: { id: string; counts: { createdNoted?: number } }[] }[];
      }
    ).jobs.find((j) => j.job === "jr")?.lastRuns;
    expect(runs?.find((r) => r.id === killedRun)?.counts.createdNoted).toBe(noted);
    const text = await cli("status");
    expect(text.stdout).toContain(
      `${killedRun} migrate interrupted: at least ${String(noted)} created`,
    );

    const rerun = await cli("migrate", "--job", "jr", "--json");
    expect(rerun.code).toBe(0);
    const second = RunSummaryJson.parse(JSON.parse(rerun.stdout));
    expect(second.summary.created).toBeLessThan(18);
    const deletesBefore = issueDeletes();

    // Newest first, as a stack: the rerun's tasks hang under stories of the killed run.
    const first = await cli("undo", "--job", "jr", "--run", second.runId, "--json");
    expect(first.code).toBe(0);
    const undoneFirst = JSON.parse(first.stdout) as { summary: { removed: number; kept: number } };
    expect(undoneFirst.summary.kept).toBe(0);
    const then = await cli("undo", "--job", "jr", "--run", killedRun, "--json");
    expect(then.code).toBe(0);
    const undoneThen = JSON.parse(then.stdout) as { summary: { removed: number; kept: number } };
    expect(undoneThen.summary).toMatchObject({ kept: 0, removed: expect.any(Number) as number });
    expect(undoneThen.summary.removed).toBeGreaterThan(0);

    const target = jobTarget(servers, "jr");
    try {
      const left: string[] = [];
      for await (const i of target.list({})) left.push(i.id);
      expect(left).toEqual([]);
    } finally {
      await target.close();
    }
    // Each of the 18 removed once: by one undo or the other, never both.
    expect(undoneFirst.summary.removed + undoneThen.summary.removed).toBe(18);
    expect(issueDeletes() - deletesBefore).toBe(18);
  }, 240_000);
});

/** `DELETE …/issue/{key}` requests the Jira sandbox answered (sprint deletes apart). */
function issueDeletes(): number {
  return Object.entries(servers.jira.stats().byRoute)
    .filter(([route]) => /^DELETE .*\/issue\/:[^/]+$/.test(route))
    .reduce((n, [, count]) => n + count, 0);
}
