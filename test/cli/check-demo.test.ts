import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

const WRONG = "not-the-token-fedcba9876543210";

describe("check", () => {
  it("validates the files and probes every system of every job", async () => {
    const r = await runCliProcess(["check", "--config", config], { env: servers.env });
    expect(r).toMatchObject({ code: 0 });
    expect(r.stdout).toMatch(/^Config .*: ok \(2 jobs/m);
    expect(r.stdout).toMatch(/^ok +job gh: tinyPM/m);
    expect(r.stdout).toMatch(/^ok +job gh: github/m);
    expect(r.stdout).toMatch(/^ok +job jr: jira/m);
  });

  it.each([
    ["TINYPM_TOKEN", /^FAIL job gh: tinyPM: .*TINYPM_TOKEN/m],
    ["GITHUB_TOKEN", /^FAIL job gh: github: .*GITHUB_TOKEN/m],
    ["JIRA_TOKEN", /^FAIL job jr: jira: .*JIRA_TOKEN/m],
  ])("a wrong %s: exit 3, the variable named, the token never shown", async (variable, line) => {
    const r = await runCliProcess(["check", "--config", config], {
      env: { ...servers.env, [variable]: WRONG },
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(line);
    expect(r.stdout + r.stderr).not.toContain(WRONG);
  });

  it("a missing variable is a config problem (exit 2) naming it", async () => {
    const env: Record<string, string> = { ...servers.env };
    delete env.GITHUB_TOKEN;
    const r = await runCliProcess(["check", "--config", config], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error [config_invalid]");
    expect(r.stderr).toContain("GITHUB_TOKEN");
  });
});

describe("check: files", () => {
  it("--offline validates without secrets or network", async () => {
    const r = await runCliProcess(["check", "--config", config, "--offline"]);
    expect(r).toMatchObject({ code: 0 });
    expect(r.stdout).toMatch(/^Config .*: ok/m);
    expect(r.stdout).not.toContain("job gh:");
  });

  it("lists every mapping problem at once, each with its file and path", async () => {
    const bad = join(tmp.dir, "bad.yaml");
    writeFileSync(bad, "version: 1\nto: jira\n");
    const users = join(tmp.dir, "users.yaml");
    writeFileSync(users, "policy: sometimes\nusers: 7\n");
    const text = readFileSync(config, "utf8").replace(
      /"mapping": "[^"]*github\.yaml"/,
      `"mapping": ${JSON.stringify(bad)}`,
    );
    const file = join(tmp.dir, "two-problems.json");
    writeFileSync(file, JSON.stringify({ ...JSON.parse(text), users }));
    const r = await runCliProcess(["check", "--config", file, "--offline"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error [mapping_invalid]");
    expect(r.stderr).toContain(`${bad} > from`);
    expect(r.stderr).toMatch(/users\.yaml > policy: found "sometimes"; valid choices: skip/);
  });
});

describe("demo", () => {
  it.each([
    ["github", "GitHub", "login 6"],
    ["jira", "Jira", "email 3, map-file 3"],
  ])(
    "--target %s matches every user, migrates, edits one item on each side, syncs, and exits 0",
    async (target, name, how) => {
      const r = await runCliProcess(["demo", "--target", target, "--stories", "4"]);
      expect(r).toMatchObject({ code: 0 });
      // Jira hides bob's, dave's and frank's emails: the demo maps them, and says so (issue 14).
      expect(r.stdout).toContain(`Users: 6 of 6 tinyPM users match a ${name} account (${how})`);
      expect(r.stdout).not.toContain("counterpart");
      expect(r.stdout).not.toContain("lose an assignee");
      expect(
        /Jira shows no email for bob, dave, frank .* user map \(a temporary file, removed when the demo ends/.test(
          r.stdout,
        ),
      ).toBe(target === "jira");
      // Issue #32: the first line says what was started; no path to a folder gone at exit; next steps.
      expect(r.stdout.split("\n")[0]).toMatch(
        new RegExp(
          `^Started a tinyPM reference server with a generated project \\(http://127\\.0\\.0\\.1:\\d+/tinypm/api\\) and a ${name} sandbox \\(http://127\\.0\\.0\\.1:\\d+\\), on this machine only; both stop when the demo ends\\.$`,
        ),
      );
      expect(r.stdout).not.toMatch(/tinypm-sync-demo-\w+/);
      expect(r.stdout).toContain("Next steps:");
      expect(r.stdout).toContain("npx tinypm-sync plan --migrate");
      expect(r.stdout).toContain(
        `== 1. Migrating the generated tinyPM project to the ${name} sandbox`,
      );
      expect(r.stdout).toMatch(/Totals: \d+ create/);
      expect(r.stdout).toContain(`== 2. Editing one story in tinyPM and one issue in ${name}`);
      expect(r.stdout).toMatch(/tinyPM: renamed story/);
      expect(r.stdout).toContain("== 3. Syncing both ways");
      expect(r.stdout).toContain(`title → ${name}:`);
      expect(r.stdout).toContain(`description → tinyPM:`);
      expect(r.stdout).toMatch(/Totals: 2 update/);
      // Issue #32: every run's totals account for every linked item, closed iterations a tiered
      // read left out included; ids say whether they name a story or a task; no internal words.
      const totals = [...r.stdout.matchAll(/^Totals: (.*)$/gm)].map((m) =>
        [...(m[1] ?? "").matchAll(/(?:^|· )(\d+) /g)].reduce((n, x) => n + Number(x[1]), 0),
      );
      expect(totals).toHaveLength(2);
      expect(totals[0]).toBeGreaterThan(0);
      expect(totals[1]).toBe(totals[0]);
      expect(r.stdout).toMatch(/ tinyPM story #1 → /);
      expect(r.stdout).toMatch(/ task "[^"]+" {2}tinyPM task #1 → /);
      expect(r.stdout).not.toMatch(/tinyPM #\d/);
      expect(r.stdout).not.toMatch(/listings:|tiered:|summary, tasks/);
    },
  );
});

describe("demo --keep", () => {
  it("leaves the servers running, prints how to reach them, and stops on SIGINT with exit 0", async () => {
    const demo = startCliProcess(["demo", "--keep", "--stories", "2"]);
    try {
      await waitForOutput(demo, (o) => o.stdout.includes("Press Ctrl-C"));
      const out = demo.output().stdout;
      expect(out).toMatch(/^tinyPM reference server: http:\/\/127\.0\.0\.1:\d+\/tinypm\/api$/m);
      expect(out).toMatch(/^GitHub sandbox: http:\/\/127\.0\.0\.1:\d+$/m);
      // Issue #32: commands a clone can run (npx), and where the demo's folder is.
      expect(out).toMatch(/^ +npx tinypm-sync status --config \S+$/m);
      expect(out).not.toMatch(/^ +tinypm-sync /m);
      expect(out).toMatch(/^Folder: (\S+) .*remove it with `rm -rf \1`/m);
      const config = /^Config: (.+)$/m.exec(out)?.[1] ?? "";
      const env = Object.fromEntries(
        (/^Try: +export (.+)$/m.exec(out)?.[1] ?? "").split(" ").map((kv) => kv.split("=")),
      ) as Record<string, string>;
      expect(Object.keys(env)).toEqual(["TINYPM_TOKEN", "GITHUB_TOKEN"]);
      const status = await runCliProcess(["status", "--config", config, "--json"], { env });
      expect(status).toMatchObject({ code: 0 });
      const parsed = JSON.parse(status.stdout) as { jobs: { links: number }[] };
      expect(parsed.jobs[0]?.links).toBeGreaterThan(0);
    } finally {
      demo.kill("SIGINT");
    }
    expect((await demo.done).code).toBe(0);
  });
});
