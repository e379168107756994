import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import { closedPort, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

let servers: Servers;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers();
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

const WRONG = "wrong-token-0123456789abcdef";

describe("exit 2: nothing done", () => {
  it("a usage error (missing --config) names the flag", async () => {
    const r = await runCliProcess(["plan", "--job", "gh"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error \[usage\]: .*--config/);
  });

  it("an invalid config lists every problem with its path", async () => {
    const file = join(tmp.dir, "bad-config.json");
    writeFileSync(
      file,
      JSON.stringify({
        tinypm: { baseUrl: "not a url", tokenEnv: "TINYPM_TOKEN" },
        targets: {},
        jobs: [{ name: "x", tinypmProject: 1, target: "nowhere", direction: "sideways" }],
      }),
    );
    const r = await runCliProcess(["plan", "--config", file, "--job", "x"], { env: servers.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error [config_invalid]");
    expect(r.stderr).toMatch(/baseUrl/);
    expect(r.stderr).toMatch(/direction/);
    expect(r.stdout).toBe("");
  });

  it("an invalid mapping names the file and the path", async () => {
    const mapping = join(tmp.dir, "bad-mapping.yaml");
    writeFileSync(mapping, "version: 1\nto: gitlab\nfields: 7\n");
    const file = writeConfig(tmp.dir, servers, { file: "bad-mapping.json" });
    const text = JSON.stringify(JSON.parse(readText(file)), null, 2).replace(
      /"mapping": "[^"]*github\.yaml"/,
      `"mapping": ${JSON.stringify(mapping)}`,
    );
    writeFileSync(file, text);
    const r = await runCliProcess(["plan", "--config", file, "--job", "gh"], { env: servers.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error [mapping_invalid]");
    expect(r.stderr).toContain("bad-mapping.yaml");
  });

  it("a state file locked by another run", async () => {
    const dir = join(tmp.dir, "locked");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(dir);
    const file = writeConfig(dir, servers);
    const holder = openSqliteStore({ path: join(dir, "state.db") });
    try {
      const r = await runCliProcess(["migrate", "--config", file, "--job", "gh"], {
        env: servers.env,
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("error [state_locked]");
    } finally {
      holder.close();
    }
  });
});

describe("exit 3: aborted", () => {
  it.each([
    ["tinyPM", "TINYPM_TOKEN", "gh"],
    ["GitHub", "GITHUB_TOKEN", "gh"],
    ["Jira", "JIRA_TOKEN", "jr"],
  ])("a wrong %s token names the variable, never the token", async (_name, variable, job) => {
    const file = writeConfig(tmp.dir, servers);
    const r = await runCliProcess(["plan", "--config", file, "--job", job], {
      env: { ...servers.env, [variable]: WRONG },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/error \[(auth_failed|permission_denied)\]/);
    expect(r.stderr).toContain(variable);
    expect(r.stderr + r.stdout).not.toContain(WRONG);
  });

  it("an unreachable host (a closed port on 127.0.0.1)", async () => {
    const port = await closedPort();
    const file = writeConfig(tmp.dir, servers, {
      tinypmUrl: `http://127.0.0.1:${port}/tinypm/api`,
      file: "closed.json",
    });
    const r = await runCliProcess(["plan", "--config", file, "--job", "gh"], { env: servers.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("error [remote_unavailable]");
  });
});

function readText(file: string): string {
  return readFileSync(file, "utf8");
}
