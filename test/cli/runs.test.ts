import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTarget, createTinypm } from "../../src/adapters/registry.js";
import { RunSummaryJson, StatusJson } from "../../src/cli/json-output.js";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess, startCliProcess, waitForOutput } from "./spawn.js";

let servers: Servers;
let config: string;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers();
  config = writeConfig(tmp.dir, servers);
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

const cli = (...args: string[]) =>
  runCliProcess([...args, "--config", config], { env: { ...servers.env } });

const MARKER = { job: "gh", origin: "tinypm", originKind: "story", originId: "1" } as const;

function githubTracker() {
  return createTarget({
    type: "github",
    tokenEnv: "GITHUB_TOKEN",
    importApi: false,
    baseUrl: servers.github.url,
    owner: servers.github.owner,
    repo: servers.github.repo,
    token: servers.github.token,
  });
}

/** Renames story 1 differently on both sides, so the next sync finds a conflict. */
async function editBothSides(): Promise<void> {
  const tinypm = createTinypm({
    baseUrl: servers.tinypm.url,
    token: servers.tinypm.token,
    projectId: 1,
  });
  const github = githubTracker();
  try {
    const story = await tinypm.get({ kind: "story", id: "1" });
    if (story === undefined) throw new Error("story 1 is missing");
    await tinypm.update(
      { kind: "story", id: "1" },
      { set: { title: "Renamed in tinyPM" }, base: story },
    );
    const copy = await github.findByMarker(MARKER);
    if (copy === undefined) throw new Error("story 1 was not migrated");
    await github.update({ kind: "story", id: copy.id }, { set: { title: "Renamed on GitHub" } });
  } finally {
    await Promise.allSettled([tinypm.close(), github.close()]);
  }
}

describe("logs", () => {
  it("go to stderr as JSON lines, with no token in them; stdout has only the report", async () => {
    const r = await cli("plan", "--job", "gh", "--log-level", "debug");
    expect(r).toMatchObject({ code: 0 });
    const lines = r.stderr.trim().split("\n");
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    const tokens = Object.values(servers.env).filter((v) => v.length > 8);
    for (const token of tokens) expect(r.stderr + r.stdout).not.toContain(token);
    expect(r.stdout).toMatch(/^Sync plan · job gh/);
  });

  it("--log-format pretty writes lines for people", async () => {
    const r = await cli("plan", "--job", "gh", "--log-format", "pretty", "--log-level", "info");
    expect(r).toMatchObject({ code: 0 });
    expect(r.stderr).toContain("run started");
    expect(r.stderr.trim().startsWith("{")).toBe(false);
  });
});

describe("migrate and sync --json, status --json, conflicts", () => {
  it("migrate --json prints one summary that fits schemas/run-summary.schema.json", async () => {
    const r = await cli("migrate", "--job", "gh", "--json", "--log-level", "warn");
    expect(r).toMatchObject({ code: 0 });
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const summary = RunSummaryJson.parse(JSON.parse(lines[0] ?? ""));
    expect(summary.job).toBe("gh");
    expect(summary.summary.created).toBeGreaterThan(0);
    expect(summary.summary.failed).toBe(0);
    expect(Object.keys(summary.apiCalls)).toEqual(expect.arrayContaining(["tinypm", "github"]));
  });

  it("a field changed on both sides: sync exits 4 and the conflict is open", async () => {
    await editBothSides();
    const r = await cli("sync", "--job", "gh", "--json", "--log-level", "warn");
    expect(r).toMatchObject({ code: 4 });
    const summary = RunSummaryJson.parse(JSON.parse(r.stdout));
    expect(summary.summary.conflicts).toBeGreaterThan(0);
  });

  it("status --json fits schemas/status.schema.json and shows the conflict", async () => {
    const r = await cli("status", "--json");
    expect(r).toMatchObject({ code: 0 });
    const status = StatusJson.parse(JSON.parse(r.stdout));
    const gh = status.jobs.find((j) => j.job === "gh");
    expect(gh?.links).toBeGreaterThan(0);
    expect(gh?.conflicts.map((c) => c.field)).toContain("title");
    expect(gh?.lastRuns.map((run) => run.mode)).toEqual(["sync", "migrate"]);
    expect(status.jobs.find((j) => j.job === "jr")?.lastRuns).toEqual([]);
  });

  it("status prints the same for people", async () => {
    const r = await cli("status");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Job gh → github");
    expect(r.stdout).toMatch(/open conflicts: 1/);
  });

  it("conflicts resolve --take tinypm, then sync exits 0 with tinyPM's title on GitHub", async () => {
    const list = await cli("conflicts", "list", "--json");
    expect(list.code).toBe(0);
    const [conflict] = JSON.parse(list.stdout) as { id: number }[];
    expect(conflict).toBeDefined();
    const resolved = await cli("conflicts", "resolve", String(conflict?.id), "--take", "tinypm");
    expect(resolved).toMatchObject({ code: 0 });
    expect(resolved.stdout).toContain("tinypm wins");
    const sync = await cli("sync", "--job", "gh", "--json", "--log-level", "warn");
    expect(sync).toMatchObject({ code: 0 });
    expect(RunSummaryJson.parse(JSON.parse(sync.stdout)).summary.conflicts).toBe(0);
    const github = githubTracker();
    try {
      const copy = await github.findByMarker(MARKER);
      expect(copy?.title).toBe("Renamed in tinyPM");
    } finally {
      await github.close();
    }
  });
});

describe("export and sync --watch", () => {
  it("export prints the project as a JSON archive, and nothing else, on stdout", async () => {
    const r = await cli("export", "--job", "gh", "--log-level", "warn");
    expect(r).toMatchObject({ code: 0 });
    const archive = JSON.parse(r.stdout) as { stories: unknown[] };
    expect(archive.stories).toHaveLength(3);
  });

  it("--interval without --watch is a usage error", async () => {
    const r = await cli("sync", "--interval", "5m");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error [usage]: --interval needs --watch.");
  });

  it("sync --watch runs every interval and stops on SIGINT between runs with exit 0", async () => {
    const watch = startCliProcess(
      ["sync", "--config", config, "--job", "gh", "--watch", "--interval", "3s", "--json"],
      { env: servers.env },
    );
    // Right after the second summary the process sleeps for 3 s: the signal lands between runs.
    await waitForOutput(watch, (o) => o.stdout.trim().split("\n").length >= 2);
    watch.kill("SIGINT");
    const r = await watch.done;
    expect(r.code).toBe(0);
    for (const line of r.stdout.trim().split("\n")) {
      expect(RunSummaryJson.parse(JSON.parse(line)).summary.created).toBe(0);
    }
  });
});
