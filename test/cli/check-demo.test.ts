import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

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

describe("demo", () => {
  it.each([
    ["github", "GitHub"],
    ["jira", "Jira"],
  ])(
    "--target %s migrates, edits one item on each side, syncs, and exits 0",
    async (target, name) => {
      const r = await runCliProcess(["demo", "--target", target, "--stories", "4"]);
      expect(r).toMatchObject({ code: 0 });
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
    },
  );
});
