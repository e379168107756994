import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

let servers: Servers;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=1,tasks=0,comments=0");
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

/** A config in its own directory, edited by `edit` (the parsed JSON). */
function config(
  name: string,
  edit: (c: Record<string, unknown>) => void = () => undefined,
): string {
  const dir = join(tmp.dir, name);
  mkdirSync(dir);
  const file = writeConfig(dir, servers);
  const parsed = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  edit(parsed);
  writeFileSync(file, JSON.stringify(parsed, null, 2));
  return file;
}

const jobs = (c: Record<string, unknown>) => c.jobs as Record<string, unknown>[];

describe("config errors", () => {
  it("a mistyped key suggests the right one", async () => {
    const file = config("typo", (c) => {
      const [job] = jobs(c);
      if (job === undefined) return;
      job.tinypmProjct = job.tinypmProject;
      delete job.tinypmProject;
    });
    const r = await runCliProcess(["check", "--offline", "--config", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'jobs > 0 > tinypmProjct: unknown key "tinypmProjct"; did you mean "tinypmProject"?',
    );
  });

  it("a key too far from any allowed one lists the allowed keys", async () => {
    const file = config("unknown", (c) => {
      c.state = { path: "state.db", zzz: 1 };
    });
    const r = await runCliProcess(["check", "--offline", "--config", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'state > zzz: unknown key "zzz"; valid keys: path, url, urlEnv, waitForLockMs',
    );
  });

  it("a JSON syntax error gives the line and column, and shows the line", async () => {
    const dir = join(tmp.dir, "syntax");
    mkdirSync(dir);
    const file = join(dir, "config.json");
    writeFileSync(file, '{\n  "targets": {},\n  "jobs": []\n  "state": {}\n}\n');
    const r = await runCliProcess(["check", "--offline", "--config", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /error \[config_invalid\]: The config file .* is not valid JSON at line 4, column 3:/,
    );
    expect(r.stderr).toContain('  4 |   "state": {}\n    |   ^');
    expect(r.stderr).toMatch(/hint: Fix the JSON syntax at line 4, column 3/);
  });

  it("an empty environment variable is reported as empty, a missing one as not set", async () => {
    const file = config("env");
    const r = await runCliProcess(["plan", "--job", "gh", "--config", file], {
      env: { TINYPM_TOKEN: "" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("environment variable TINYPM_TOKEN is set but empty");
    expect(r.stderr).toContain("environment variable GITHUB_TOKEN is not set");
  });
});

describe("hints that lead somewhere", () => {
  it("state_locked names the setting to wait with", async () => {
    const file = config("locked");
    const holder = openSqliteStore({ path: join(tmp.dir, "locked", "state.db") });
    try {
      const r = await runCliProcess(["sync", "--job", "gh", "--config", file], {
        env: servers.env,
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("error [state_locked]");
      expect(r.stderr).toMatch(/hint: .*set `state\.waitForLockMs` in the config/);
    } finally {
      holder.close();
    }
  });

  it("state_invalid says how to rebuild the links", async () => {
    const file = config("invalid");
    writeFileSync(join(tmp.dir, "invalid", "state.db"), "not a database, not at all");
    const r = await runCliProcess(["sync", "--job", "gh", "--config", file], { env: servers.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error [state_invalid]");
    expect(r.stderr).toMatch(
      /hint: .*move .*state\.db away and run `tinypm-sync sync`.*rebuilds the links from the markers/,
    );
  });

  it("a tinyPM base URL without /api says so", async () => {
    const file = config("no-api", (c) => {
      (c.tinypm as { baseUrl: string }).baseUrl = servers.tinypm.url.replace(/\/api\/?$/, "");
    });
    const r = await runCliProcess(["plan", "--job", "gh", "--config", file], { env: servers.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /error \[not_found\]: tinyPM at .* answered 404 for the project and for \/projects: the base URL does not end in \/api/,
    );
    expect(r.stderr).toMatch(
      /hint: Set tinypm\.baseUrl to the API root, e\.g\. http:\/\/127\.0\.0\.1:\d+\/.*api/,
    );
  });

  it("an unknown tinyPM project lists the projects the token can see", async () => {
    const file = config("project", (c) => {
      const [job] = jobs(c);
      if (job !== undefined) job.tinypmProject = 99;
    });
    const r = await runCliProcess(["plan", "--job", "gh", "--config", file], { env: servers.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /error \[not_found\]: tinyPM has no project 99 \(or this token may not see it\); the projects this token sees: 1 "[^"]+"/,
    );
    expect(r.stderr).toContain("hint: Set the job's tinypmProject to one of these ids");
  });
});
