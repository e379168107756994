import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StatusJson } from "../../src/library/status.js";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";

// The package as a user installs it: `import … from "tinypm-sync"` resolved through its
// package.json `exports` to the BUILT dist/index.js (the cli project's global setup builds dist/),
// from a directory whose node_modules/tinypm-sync links to this repository.
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const run = promisify(execFile);

let servers: Servers;
const tmp = tempDir();
let configObject: unknown;

beforeAll(async () => {
  servers = await startServers("stories=4,tasks=2,comments=1");
  mkdirSync(join(tmp.dir, "node_modules"));
  symlinkSync(ROOT, join(tmp.dir, "node_modules", "tinypm-sync"), "dir");
  writeFileSync(join(tmp.dir, "package.json"), '{ "type": "module", "private": true }\n');
  // The same config the CLI tests use, given as an object: the state path stays relative.
  const file = writeConfig(tmp.dir, servers);
  configObject = {
    ...(JSON.parse(readFileSync(file, "utf8")) as object),
    state: { path: "state/state.db" },
  };
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

/** What the script prints (its one line of JSON). */
interface Out {
  resolved: string;
  badConfig: {
    configError: boolean;
    syncError: boolean;
    code: string;
    message: string;
    issues: string[];
  };
  missingSecrets: { configError: boolean; message: string };
  plan: {
    dryRun: boolean;
    mode: string;
    summary: Record<string, number>;
    creates: number;
    githubWrites: number;
    reportItems: number;
    markdown: boolean;
    events: string[];
  };
  statusAfterPlan: unknown;
  migrate: {
    dryRun: boolean;
    summary: Record<string, number>;
    githubWrites: number;
    runId: string;
    planKept: boolean;
    actions: number;
  };
  sync: { mode: string; summary: Record<string, number>; githubWrites: number };
  status: { valid: boolean; state: string; gh: unknown };
  unknownJob: { configError: boolean; message: string; hint: string };
}

const SCRIPT = `
import {
  ConfigError, SyncError, StatusJson, loadConfig, planJob, readStatus, renderReport, runJob, toReport,
} from "tinypm-sync";

const out = { resolved: import.meta.resolve("tinypm-sync") };
const githubWrites = async () =>
  (await (await fetch(process.env.GITHUB_ORIGIN + "/_sandbox/stats")).json()).writes;

try {
  loadConfig({ tinypm: { baseUrl: 42 }, jobs: [] }, { env: {} });
  out.badConfig = "accepted";
} catch (e) {
  out.badConfig = {
    configError: e instanceof ConfigError, syncError: e instanceof SyncError,
    code: e.code, message: e.message, issues: e.issues.map((i) => i.path.join(".")),
  };
}
try {
  loadConfig(JSON.parse(process.env.TPS_CONFIG), { env: {} });
  out.missingSecrets = "accepted";
} catch (e) {
  out.missingSecrets = { configError: e instanceof ConfigError, message: e.issues.map((i) => i.message).join("; ") };
}

// Secrets from process.env (the default); relative paths against baseDir.
const config = loadConfig(JSON.parse(process.env.TPS_CONFIG), { baseDir: process.cwd() });
const events = new Set();
const w0 = await githubWrites();
const plan = await planJob(config, "gh", { migrate: true, onEvent: (e) => events.add(e.type) });
const w1 = await githubWrites();
const report = toReport(plan);
out.plan = {
  dryRun: plan.dryRun, mode: plan.mode, summary: plan.summary,
  creates: plan.plan.actions.filter((a) => a.type === "create").length,
  githubWrites: w1 - w0, reportItems: report.items.length,
  markdown: renderReport(report, "markdown").includes("#"),
  events: [...events].sort(),
};
out.statusAfterPlan = (await readStatus(config)).jobs.find((j) => j.job === "gh");
const migrated = await runJob(config, "gh", { mode: "migrate", report: "summary" });
const w2 = await githubWrites();
out.migrate = {
  dryRun: migrated.dryRun, summary: migrated.summary, githubWrites: w2 - w1, runId: migrated.runId,
  planKept: migrated.planKept, actions: migrated.plan.actions.length,
};
const synced = await runJob(config, "gh");
out.sync = { mode: synced.mode, summary: synced.summary, githubWrites: (await githubWrites()) - w2 };
const status = await readStatus(config);
out.status = { valid: StatusJson.safeParse(status).success, state: status.state, gh: status.jobs.find((j) => j.job === "gh") };
try {
  await runJob(config, "nope");
  out.unknownJob = "ran";
} catch (e) {
  out.unknownJob = { configError: e instanceof ConfigError, message: e.message, hint: e.hint };
}
console.log(JSON.stringify(out));
`;

describe("the package's programmatic API (import from 'tinypm-sync')", () => {
  it("loads a config object, plans, runs and reads the status through the built package, printing nothing", async () => {
    writeFileSync(join(tmp.dir, "use.mjs"), SCRIPT);
    const env = {
      PATH: process.env.PATH ?? "",
      ...servers.env,
      GITHUB_ORIGIN: new URL(servers.github.url).origin,
      TPS_CONFIG: JSON.stringify(configObject),
    };
    const { stdout, stderr } = await run(process.execPath, ["use.mjs"], { cwd: tmp.dir, env });
    // The library prints nothing of its own: one line, the script's.
    expect(stderr).toBe("");
    expect(stdout.trim().split("\n")).toHaveLength(1);
    const out = JSON.parse(stdout) as Out;

    expect(out.resolved).toBe(new URL("dist/index.js", `file://${ROOT}`).href);
    expect(out.badConfig).toMatchObject({
      configError: true,
      syncError: true,
      code: "config_invalid",
    });
    expect(out.badConfig.message).toMatch(/^The config object has \d+ problems?\.$/);
    expect(out.badConfig.issues).toContain("tinypm.baseUrl");
    expect(out.missingSecrets.configError).toBe(true);
    expect(out.missingSecrets.message).toMatch(/environment variable TINYPM_TOKEN is not set/);

    const items = servers.tinypm.store
      .storiesOf(1)
      .reduce((n, s) => n + 1 + servers.tinypm.store.tasksOf(s.id).length, 0);
    expect(items).toBe(12);
    expect(out.plan).toMatchObject({
      dryRun: true,
      mode: "migrate",
      creates: items,
      githubWrites: 0,
    });
    expect(out.plan.summary.created).toBe(items);
    expect(out.plan.reportItems).toBeGreaterThanOrEqual(items);
    expect(out.plan.markdown).toBe(true);
    expect(out.plan.events).toContain("phase");
    // A plan leaves no run in the state.
    expect(out.statusAfterPlan).toMatchObject({ links: 0, lastRuns: [], running: null });

    expect(out.migrate.dryRun).toBe(false);
    expect(out.migrate.summary).toMatchObject({ created: items, failed: 0, conflicts: 0 });
    expect(out.migrate.githubWrites).toBeGreaterThanOrEqual(items);
    // Asked for its summary alone: the items went as they were written.
    expect(out.migrate).toMatchObject({ planKept: false, actions: 0 });
    expect(out.sync).toMatchObject({
      mode: "sync",
      githubWrites: 0,
      summary: { created: 0, updated: 0, deleted: 0, failed: 0, conflicts: 0 },
    });

    expect(out.status.valid).toBe(true);
    expect(out.status.state).toBe(join(tmp.dir, "state", "state.db"));
    const gh = StatusJson.shape.jobs.element.parse(out.status.gh);
    expect(gh.links).toBe(items);
    expect(gh.lastRuns.map((r) => [r.mode, r.outcome, r.exitCode])).toEqual([
      ["sync", "ok", 0],
      ["migrate", "ok", 0],
    ]);
    expect(gh.lastRuns[1]?.id).toBe(out.migrate.runId);
    expect(gh.lastSuccess?.mode).toBe("sync");

    expect(out.unknownJob.configError).toBe(true);
    expect(out.unknownJob.message).toMatch(/has no job named "nope"/);
    expect(out.unknownJob.hint).toBe("Valid jobs: gh, jr.");
  });

  it("declares its types: a TypeScript program using the API type-checks against dist/index.d.ts", async () => {
    writeFileSync(
      join(tmp.dir, "use.ts"),
      `import { loadConfig, runJob, ConfigError, type RunReport, type SyncEvent } from "tinypm-sync";
const config = loadConfig("tinypm-sync.json", { env: {} });
const events: SyncEvent[] = [];
const run: Promise<RunReport> = runJob(config, "widgets", { mode: "migrate", onEvent: (e) => events.push(e) });
const created: Promise<number> = run.then((r) => r.summary.created);
const isConfig = (e: unknown): boolean => e instanceof ConfigError && e.issues.length > 0;
// @ts-expect-error the mode is "sync" or "migrate"
void runJob(config, "widgets", { mode: "delete" });
export { created, isConfig };
`,
    );
    writeFileSync(
      join(tmp.dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ["use.ts"],
      }),
    );
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    // tsc exits non-zero on a type error; its diagnostics are on stdout either way.
    const result = await run(process.execPath, [tsc, "-p", "tsconfig.json"], {
      cwd: tmp.dir,
    }).catch((e: unknown) => e as { stdout: string; stderr: string });
    expect(`${result.stdout}${result.stderr}`).toBe("");
  });
});
