import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTinypmTracker } from "../../src/adapters/tinypm/index.js";
import { ApplyJson } from "../../src/cli/apply-output.js";
import type { Tracker } from "../../src/core/tracker.js";
import { SavedPlanFile } from "../../src/sync/saved-plan/plan-file.js";
import { until } from "../reliability/until.js";
import { duplicates, listAll, targetView } from "../reliability/snapshot.js";
import { jobTarget, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess, startCliProcess } from "./spawn.js";

/**
 * `plan --save` and `apply` on one world (tinyPM, GitHub and Jira servers, a SQLite state):
 * apply carries out exactly the saved actions; a plan made stale by a tinyPM edit or a target
 * edit, or made for another config or state, is refused with nothing written anywhere; a killed
 * apply finishes on its rerun without duplicates; a second apply does nothing.
 */
let servers: Servers;
let config: string;
const tmp = tempDir();
const stateFile = (): string => join(tmp.dir, "state.db");

beforeAll(async () => {
  servers = await startServers("stories=6,tasks=1,comments=1");
  config = writeConfig(tmp.dir, servers);
}, 60_000);
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

const args = (...a: string[]): string[] => [...a, "--log-level", "warn"];
const cli = (...a: string[]) =>
  runCliProcess(args(...a, ...(a.includes("--config") ? [] : ["--config", config])), {
    env: { ...servers.env },
  });
const writes = (): number =>
  servers.tinypm.stats().writes + servers.github.stats().writes + servers.jira.stats().writes;
/** Issues GitHub created (milestones and labels come first and are not counted). */
const issuesCreated = (): number =>
  Object.entries(servers.github.stats().byRoute)
    .filter(([route]) => /^POST .*\/issues$/.test(route))
    .reduce((sum, [, n]) => sum + n, 0);
const planFile = (name: string): string => join(tmp.dir, name);
const readPlan = (file: string): SavedPlanFile =>
  SavedPlanFile.parse(JSON.parse(readFileSync(file, "utf8")));
const tinypm = (): Tracker =>
  createTinypmTracker({
    baseUrl: servers.tinypm.url,
    token: servers.tinypm.token,
    projectId: 1,
  });

async function using<T>(tracker: Tracker, fn: (t: Tracker) => Promise<T>): Promise<T> {
  try {
    return await fn(tracker);
  } finally {
    await tracker.close();
  }
}

/** The servers' write count and the state file's bytes (empty when there is none yet). */
const snapshot = () => ({
  writes: writes(),
  state: existsSync(stateFile()) ? readFileSync(stateFile()) : Buffer.alloc(0),
});
/** Nothing changed on any server or in the state since `before`. */
function expectUntouched(before: ReturnType<typeof snapshot>): void {
  const now = snapshot();
  expect(now.writes).toBe(before.writes);
  expect(now.state.equals(before.state)).toBe(true);
}

describe("a saved plan of a Jira migration", () => {
  it("apply creates exactly the planned items, and a second apply does nothing", async () => {
    const file = planFile("jira.json");
    const saved = await cli("plan", "--migrate", "--job", "jr", "--save", file);
    expect(saved.code).toBe(0);
    const plan = readPlan(file);
    expect(plan).toMatchObject({ format: "tinypm-sync/plan@1", job: "jr", mode: "migrate" });
    expect(plan.actions.map((a) => a.type)).toEqual(Array<string>(12).fill("create"));
    // No secret enters the file.
    const text = readFileSync(file, "utf8");
    for (const secret of Object.values(servers.env)) expect(text).not.toContain(secret);

    // A story added after the plan was made is not the plan's: apply leaves it for later.
    await using(tinypm(), (t) =>
      t.create({
        kind: "story",
        title: "Added after the plan",
        status: "PENDING",
        assignees: [],
        labels: [],
      }),
    );
    const applied = await cli("apply", file, "--json");
    expect(applied.code).toBe(0);
    // The rehearsal's warnings are the run's: each told once.
    expect(applied.stderr.match(/lose an assignee/g)).toHaveLength(1);
    const run = ApplyJson.parse(JSON.parse(applied.stdout));
    expect(run.summary).toMatchObject({ created: 12, failed: 0 });
    expect(run.plan).toMatchObject({ actions: 12, alreadyApplied: false, outside: 1 });
    const jira = await using(jobTarget(servers, "jr"), listAll);
    expect(jira.map((i) => `${i.marker?.originKind}:${i.marker?.originId}`).sort()).toEqual(
      plan.actions.map((a) => `${a.kind}:${a.tinypmId}`).sort(),
    );

    const before = snapshot();
    const again = await cli("apply", file);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`was applied already by run ${run.runId}: nothing to do`);
    expectUntouched(before);
  }, 120_000);

  it("refuses a plan made stale by an edit on the target: plan_stale naming it, nothing written", async () => {
    const copy = await using(jobTarget(servers, "jr"), (t) =>
      t.findByMarker({ job: "jr", origin: "tinypm", originKind: "story", originId: "1" }),
    );
    if (copy === undefined) throw new Error("story 1 has no Jira copy");
    await using(tinypm(), (t) =>
      t.update({ kind: "story", id: "1" }, { set: { title: "Renamed in tinyPM" } }),
    );
    const file = planFile("jira-sync.json");
    expect((await cli("plan", "--job", "jr", "--save", file)).code).toBe(0);
    // The story added in tinyPM is planned too: the migration's apply left it out.
    const actions = readPlan(file).actions;
    expect(actions.map((a) => a.key).sort()).toEqual(["create:target:story:7", "update:story:1"]);
    expect(actions.find((a) => a.type === "update")?.fields).toEqual(["title → target"]);
    await using(jobTarget(servers, "jr"), (t) =>
      t.update({ kind: "story", id: copy.id }, { set: { labels: ["by-hand"] } }),
    );

    const before = snapshot();
    const refused = await cli("apply", file);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("error [plan_stale]");
    expect(refused.stderr).toContain(`update of story tinyPM 1 / Jira ${copy.id}`);
    expect(refused.stderr).toContain("Jira labels changed");
    expectUntouched(before);
  }, 120_000);
});

describe("a saved plan of a GitHub migration", () => {
  it("refuses a plan made stale by a tinyPM edit: plan_stale naming it, nothing written", async () => {
    const file = planFile("github-stale.json");
    expect((await cli("plan", "--migrate", "--job", "gh", "--save", file)).code).toBe(0);
    await using(tinypm(), (t) =>
      t.update({ kind: "story", id: "2" }, { set: { title: "Renamed after the plan" } }),
    );
    const before = snapshot();
    const refused = await cli("apply", file, "--json");
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain("error [plan_stale]");
    expect(refused.stderr).toContain('create of story tinyPM 2 "');
    expect(refused.stderr).toContain("tinyPM title changed");
    expect(refused.stderr).toContain("1 of its 13 actions");
    expectUntouched(before);
  }, 120_000);

  it("refuses a plan made for another config or state, naming what differs", async () => {
    // Checked before anything is read: the stale plan of the test above serves.
    const file = planFile("github-stale.json");
    const base = JSON.parse(readFileSync(config, "utf8")) as {
      jobs: { name: string; onDelete: string }[];
      state: { path: string };
    };
    const variant = (name: string, change: (c: typeof base) => void): string => {
      const c = structuredClone(base);
      change(c);
      const path = join(tmp.dir, name);
      writeFileSync(path, JSON.stringify(c));
      return path;
    };
    const before = snapshot();
    const otherJob = variant("other-job.json", (c) => {
      const gh = c.jobs.find((j) => j.name === "gh");
      if (gh) gh.onDelete = "delete";
    });
    const job = await cli("apply", file, "--config", otherJob);
    expect(job.code).toBe(2);
    expect(job.stderr).toContain("error [plan_mismatch]");
    expect(job.stderr).toContain(`than ${otherJob}; what differs: the job's settings.`);

    const otherState = variant("other-state.json", (c) => {
      c.state.path = join(tmp.dir, "other-state.db");
    });
    const state = await cli("apply", file, "--config", otherState);
    expect(state.code).toBe(2);
    expect(state.stderr).toContain("error [plan_mismatch]");
    expect(state.stderr).toContain(`the state (${join(tmp.dir, "other-state.db")})`);

    const noJob = variant("no-job.json", (c) => {
      c.jobs = c.jobs.filter((j) => j.name !== "gh");
    });
    const missing = await cli("apply", file, "--config", noJob);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no job `gh`");
    expectUntouched(before);
    expect(existsSync(join(tmp.dir, "other-state.db"))).toBe(false);
  }, 120_000);

  it("a killed apply finishes on its rerun without duplicates; a third apply does nothing", async () => {
    const file = planFile("github.json");
    expect((await cli("plan", "--migrate", "--job", "gh", "--save", file)).code).toBe(0);
    const plan = readPlan(file);
    expect(plan.actions).toHaveLength(13);
    const before = issuesCreated();
    const proc = startCliProcess(args("apply", file, "--config", config), {
      env: { ...servers.env },
    });
    await until(
      "the apply's first creates",
      () => Promise.resolve(issuesCreated() >= before + 3 ? true : undefined),
      60_000,
      5,
    );
    proc.kill("SIGKILL");
    expect((await proc.done).code).toBeNull();

    const rerun = await cli("apply", file, "--json");
    expect(rerun.code).toBe(0);
    const run = ApplyJson.parse(JSON.parse(rerun.stdout));
    expect(run.plan.alreadyDone).toBeGreaterThan(0);
    expect(run.summary.created + run.plan.alreadyDone).toBe(13);
    const view = await using(jobTarget(servers, "gh"), targetView);
    expect(duplicates(view)).toEqual([]);
    expect(Object.keys(view.counts).sort()).toEqual(
      plan.actions.map((a) => `tinypm:${a.kind}:${a.tinypmId}`).sort(),
    );

    const after = snapshot();
    const third = await cli("apply", file, "--json");
    expect(third.code).toBe(0);
    expect(ApplyJson.parse(JSON.parse(third.stdout)).plan.alreadyApplied).toBe(true);
    expectUntouched(after);
  }, 180_000);
});
