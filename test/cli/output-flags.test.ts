import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTarget, createTinypm } from "../../src/adapters/registry.js";
import { RunSummaryJson, StatusJson } from "../../src/cli/json-output.js";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

let servers: Servers;
let config: string;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=2,tasks=1,comments=0");
  config = writeConfig(tmp.dir, servers);
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

const cli = (...args: string[]) =>
  runCliProcess([...args, "--config", config], { env: { ...servers.env } });

/** Renames story 1 differently on both sides, so the next sync finds a conflict. */
async function editBothSides(): Promise<void> {
  const tinypm = createTinypm({
    baseUrl: servers.tinypm.url,
    token: servers.tinypm.token,
    projectId: 1,
  });
  const github = createTarget({
    type: "github",
    tokenEnv: "GITHUB_TOKEN",
    importApi: false,
    baseUrl: servers.github.url,
    owner: servers.github.owner,
    repo: servers.github.repo,
    token: servers.github.token,
  });
  try {
    const story = await tinypm.get({ kind: "story", id: "1" });
    if (story === undefined) throw new Error("story 1 is missing");
    // Its copy on GitHub, by title (the sandbox holds only this job's issues).
    let copy;
    for await (const item of github.list({ kind: "story" }))
      if (item.title === story.title) copy = item;
    if (copy === undefined) throw new Error("story 1 was not migrated");
    await tinypm.update({ kind: "story", id: "1" }, { set: { title: "Left" }, base: story });
    await github.update({ kind: "story", id: copy.id }, { set: { title: "Right" } });
  } finally {
    await Promise.allSettled([tinypm.close(), github.close()]);
  }
}

describe("plan exit codes", () => {
  it("plain plan exits 0 with changes; --detailed-exitcode exits 2 for changes", async () => {
    const plain = await cli("plan", "--job", "gh", "--log-level", "warn");
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/create/i);
    const detailed = await cli("plan", "--job", "gh", "--detailed-exitcode", "--log-level", "warn");
    expect(detailed.code).toBe(2);
  });

  it("--json with --format html --out writes both the summary and the file", async () => {
    const out = join(tmp.dir, "migrate.html");
    const r = await cli("migrate", "--job", "gh", "--json", "--format", "html", "--out", out);
    expect(r.code).toBe(0);
    expect(RunSummaryJson.parse(JSON.parse(r.stdout.trim())).summary.created).toBeGreaterThan(0);
    expect(readFileSync(out, "utf8")).toMatch(/^<!doctype html>/i);
  });

  it("--json with --format html but no --out is refused with exit 2, nothing done", async () => {
    const r = await cli("sync", "--job", "gh", "--json", "--format", "html");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error \[usage\]: --json prints the run summary on stdout/);
    expect(r.stderr).toContain("hint: Add --out <file>");
    expect(r.stdout).toBe("");
  });

  it("nothing to do: --detailed-exitcode exits 0", async () => {
    const r = await cli("plan", "--job", "gh", "--detailed-exitcode", "--log-level", "warn");
    expect(r.code).toBe(0);
  });

  it("a conflict: sync exits 4, plain plan exits 0, --detailed-exitcode exits 4", async () => {
    await editBothSides();
    const sync = await cli("sync", "--job", "gh", "--log-level", "warn");
    expect(sync.code).toBe(4);
    const plain = await cli("plan", "--job", "gh", "--log-level", "warn");
    expect(plain.code).toBe(0);
    const detailed = await cli("plan", "--job", "gh", "--detailed-exitcode", "--log-level", "warn");
    expect(detailed.code).toBe(4);
  });
});

describe("status", () => {
  it("says in words that the last run ended with an open conflict (exit 4), not ok", async () => {
    const r = await cli("status");
    expect(r.code).toBe(0);
    const gh = r.stdout.slice(r.stdout.indexOf("Job gh"), r.stdout.indexOf("Job jr"));
    expect(gh).toMatch(
      /last run: sync finished with 1 open conflict \(exit 4\) — at .* UTC, took [\d.]+ s — .*1 in conflict/,
    );
    expect(gh).toMatch(/last successful run: migrate succeeded \(exit 0\) — .* — \d+ created/);
    expect(gh).toContain("running now: no");
    expect(gh).toMatch(/open conflicts: 1 \(see `tinypm-sync conflicts list`\)/);
    expect(gh).toMatch(/- #\d+ story 1 ⇄ \d+: field title/);
    expect(gh).toContain("parked failures: 0");
    expect(gh).toMatch(/Job gh → github: \d+ linked items/);
    expect(gh).not.toContain("{");
    expect(r.stdout).toMatch(
      /Job jr → jira: 0 linked items\n {2}running now: no\n {2}last run: never/,
    );
  });

  it("--json keeps its shape, extended with durations, exit codes, the last success and a run going on", async () => {
    const r = await cli("status", "--json");
    const status = StatusJson.parse(JSON.parse(r.stdout));
    const gh = status.jobs.find((j) => j.job === "gh");
    expect(gh?.lastRuns[0]).toMatchObject({ mode: "sync", outcome: "partial", exitCode: 4 });
    expect(gh?.lastRuns[0]?.durationMs).toBeGreaterThanOrEqual(0);
    expect(gh?.lastSuccess).toMatchObject({ mode: "migrate", exitCode: 0 });
    expect(gh?.running).toBeNull();
  });

  it("a run whose process is gone is shown as interrupted; a live one as running now", async () => {
    const dir = join(tmp.dir, "liveness");
    mkdirSync(dir);
    const file = writeConfig(dir, servers);
    const state = openSqliteStore({ path: join(dir, "state.db") });
    state.startRun("gh", "sync");
    // This process holds the state and the run: it is going on now.
    const live = await runCliProcess(["status", "--config", file], { env: servers.env });
    expect(live.stdout).toMatch(/running now: sync since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    // The Workers table names the process holding the file and the job of its unfinished run.
    expect(live.stdout).toContain("Workers: 1 alive");
    expect(live.stdout).toMatch(new RegExp(`\\s${String(process.pid)}\\s.*\\sgh\\s+alive`));
    state.close();
    // The lock is released while the run was never finished: its process is gone.
    const gone = await runCliProcess(["status", "--config", file, "--json"], { env: servers.env });
    const job = StatusJson.parse(JSON.parse(gone.stdout)).jobs.find((j) => j.job === "gh");
    expect(job?.running).toBeNull();
    expect(job?.lastRuns[0]).toMatchObject({ outcome: "interrupted", exitCode: 130 });
    expect(StatusJson.parse(JSON.parse(gone.stdout)).workers).toEqual([]);
    const text = await runCliProcess(["status", "--config", file], { env: servers.env });
    expect(text.stdout).toContain("running now: no");
    expect(text.stdout).toContain("last run: sync interrupted: its process is gone");
  });
});

describe("--config and --log-level on every command", () => {
  it("--config defaults to $TINYPM_SYNC_CONFIG, then ./tinypm-sync.json", async () => {
    const fromEnv = await runCliProcess(["status", "--json"], {
      env: { ...servers.env, TINYPM_SYNC_CONFIG: config },
    });
    expect(fromEnv.code).toBe(0);
    expect(StatusJson.parse(JSON.parse(fromEnv.stdout)).jobs).toHaveLength(2);
    const dir = join(tmp.dir, "cwd");
    mkdirSync(dir);
    writeFileSync(join(dir, "tinypm-sync.json"), readFileSync(config));
    const fromCwd = await runCliProcess(["check", "--offline"], { env: servers.env, cwd: dir });
    expect(fromCwd.code).toBe(0);
    expect(fromCwd.stdout).toContain(`Config ${join(dir, "tinypm-sync.json")}: ok`);
    const none = await runCliProcess(["status"], { env: servers.env, cwd: tmp.dir });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /error \[usage\]: No config file: --config was not given, \$TINYPM_SYNC_CONFIG is not set, and there is no tinypm-sync\.json in /,
    );
  });

  it.each([
    ["check", "--offline"],
    ["status"],
    ["conflicts", "list"],
    ["export", "--job", "gh", "--out", "archive.json"],
  ])("%s takes --log-level and --log-format", async (...args) => {
    const r = await runCliProcess(
      [...args, "--config", config, "--log-level", "debug", "--log-format", "json"],
      { env: servers.env, cwd: tmp.dir },
    );
    expect(r.stderr).not.toContain("error [usage]");
    expect(r.code).toBe(0);
  });

  it("check --log-level debug logs one line per HTTP request of the probes, as JSON off a terminal", async () => {
    const r = await cli("check", "--log-level", "debug");
    expect(r.code).toBe(0);
    const lines = r.stderr
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const systems = new Set(lines.filter((l) => l.msg === "http").map((l) => l.system));
    expect([...systems].sort()).toEqual(["github", "jira", "tinypm"]);
  });

  it("demo takes --log-level", async () => {
    const r = await runCliProcess(["demo", "--stories", "1", "--log-level", "error"]);
    expect(r.code).toBe(0);
    expect(existsSync(tmp.dir)).toBe(true);
    expect(r.stderr).toBe("");
  });
});
