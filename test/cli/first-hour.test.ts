import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { closedPort, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

// Issue #32, "the first hour with the tool": the messages a new user meets first. One world for
// the file: the bundled servers, and a tinyPM whose story reads all fail (a server gone mid-read).
let servers: Servers;
let failing: ReferenceServer;
/** A GitHub that takes one create an hour: the second create stops the run (limit_wait). */
let limited: GithubSandbox;
const tmp = tempDir();

beforeAll(async () => {
  [servers, failing, limited] = await Promise.all([
    startServers("stories=2,tasks=0,comments=0"),
    startReferenceServer({
      generate: "stories=24,tasks=0,comments=0",
      seed: 3,
      faults: "reset@GET /userstory/*",
    }),
    startGithubSandbox({ rateLimits: "creates=1/h" }),
  ]);
});
afterAll(async () => {
  await Promise.allSettled([servers.close(), failing.close(), limited.close()]);
  tmp.cleanup();
});

/** A config in its own directory, edited by `edit` (the parsed JSON). */
function config(
  name: string,
  overrides: Parameters<typeof writeConfig>[2] = {},
  edit: (c: { jobs: unknown[] }) => void = () => undefined,
): { dir: string; file: string } {
  const dir = join(tmp.dir, name);
  mkdirSync(dir);
  const file = writeConfig(dir, servers, overrides);
  const parsed = JSON.parse(readFileSync(file, "utf8")) as { jobs: unknown[] };
  edit(parsed);
  writeFileSync(file, JSON.stringify(parsed, null, 2));
  return { dir, file };
}

const cli = (args: string[], env: Record<string, string> = {}, cwd?: string) =>
  runCliProcess(args, { env: { ...servers.env, ...env }, ...(cwd === undefined ? {} : { cwd }) });

describe.concurrent("which job", { timeout: 120_000 }, () => {
  it("a mistyped --job names the config's jobs, as a usage error, not a fault of the file", async () => {
    const { file } = config("typo");
    const r = await cli(["migrate", "--job", "widget", "--config", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error [usage]: no job \`widget\`; jobs in ${file}: gh, jr`);
    expect(r.stderr).not.toContain("config_invalid");
    expect(r.stderr).not.toContain("Fix each problem");
  });

  it("with one job and no --job, plan runs that job and says so", async () => {
    const { dir } = config("one", { file: "tinypm-sync.json" }, (c) => {
      c.jobs = c.jobs.slice(0, 1);
    });
    const r = await cli(["plan", "--json", "--log-level", "warn"], {}, dir);
    expect(r.stderr).toContain("job: gh (the only job in");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ job: "gh", dryRun: true });
  });

  it("with several jobs and no --job, names them and does not run", async () => {
    const { file } = config("two");
    const r = await cli(["plan", "--config", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error [usage]: --job was not given and ${file} has 2 jobs: gh, jr`);
  });
});

describe.concurrent("the server a message is about", { timeout: 120_000 }, () => {
  it("a refused connection names the URL it went to", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/tinypm/api`;
    const { file } = config("closed", { tinypmUrl: url });
    const r = await cli(["plan", "--job", "gh", "--config", file, "--log-level", "error"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`could not reach the server at ${url} (ECONNREFUSED)`);
  });

  it("a tinyPM base URL that answers in something other than XML is not a tinyPM API, not a bad token", async () => {
    const url = `${servers.github.url}/tinypm/api`;
    const { file } = config("foreign", { tinypmUrl: url });
    const r = await cli(["plan", "--job", "gh", "--config", file, "--log-level", "error"]);
    expect(r.stderr).toContain(`not a tinyPM API at ${url}`);
    expect(r.stderr).not.toContain("auth_failed");
    expect(r.stderr).not.toContain("token was not accepted");
  });

  it("check says the same of such a base URL", async () => {
    const url = `${servers.github.url}/tinypm/api`;
    const { file } = config("foreign-check", { tinypmUrl: url });
    const check = await cli(["check", "--config", file]);
    expect(check.stdout).toContain(`not a tinyPM API at ${url}`);
    expect(check.stdout).not.toContain("auth_failed");
  });

  it("check with a read-only GitHub token says which access the token needs", async () => {
    const { file } = config("readonly");
    const r = await cli(["check", "--config", file], { GITHUB_TOKEN: servers.github.readToken });
    expect(r.code).not.toBe(0);
    const line = r.stdout.split("\n").find((l) => l.includes("job gh: github"));
    expect(line).toContain("[permission_denied]");
    expect(line).toContain("hint: The token can read");
    expect(line).toContain("the `repo` scope");
  });

  it("a tinyPM failing every read at once logs one line per retry burst, then the error with the URL", async () => {
    const { file } = config("burst", { tinypmUrl: failing.url }, (c) => {
      c.jobs = c.jobs.slice(0, 1);
    });
    const r = await cli(["plan", "--job", "gh", "--config", file, "--log-format", "json"], {
      TINYPM_TOKEN: failing.token,
    });
    expect(r.code).toBe(3);
    const retries = r.stderr.split("\n").filter((l) => l.includes('"msg":"retrying'));
    // 24 story reads fail together on each of 5 retried attempts: 5 lines, not 120.
    expect(retries.length).toBeGreaterThan(0);
    expect(retries.length).toBeLessThanOrEqual(6);
    expect(r.stderr).toContain(`could not reach the server at ${failing.url}`);
  });
});

describe("status", () => {
  it("after a stop for a rate limit, the run is waiting for limits, not failed", async () => {
    const { file } = config("limited", { githubUrl: limited.url });
    const env = { GITHUB_TOKEN: limited.token };
    const run = await cli(
      ["migrate", "--job", "gh", "--config", file, "--log-level", "error"],
      env,
    );
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("error [limit_wait]");
    const status = await cli(["status", "--config", file], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(
      /last run: migrate waiting for limits — rerun resumes \(after \S+ \S+ UTC; exit 3\)/,
    );
    expect(status.stdout).not.toContain("no retry could fix");
    expect(status.stdout).toMatch(/- \S+ migrate waiting for limits: \d+ created/);
  });
});

describe("users", () => {
  it("a job's own users file overrides the top-level map; --write says where to point the config", async () => {
    const { dir, file } = config("users", {}, (c) => {
      const [gh] = c.jobs as Record<string, unknown>[];
      if (gh !== undefined) gh.users = "gh-users.yaml";
      (c as Record<string, unknown>).users = "top-users.yaml";
    });
    writeFileSync(join(dir, "gh-users.yaml"), "users:\n  alice: bob\n");
    writeFileSync(join(dir, "top-users.yaml"), "users:\n  alice: carol\n");
    const written = join(dir, "written.yaml");
    const r = await cli(["users", "--job", "gh", "--config", file, "--write", written]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/alice +→ +bob +by map-file +users.alice: bob/);
    expect(r.stdout).not.toMatch(/alice +→ +carol/);
    expect(r.stdout).toContain("the tinyPM email's part before the @");
    expect(r.stderr).toContain(
      `Wrote the user map for job gh (GitHub acme/widgets) to ${written}.`,
    );
    expect(r.stderr).toContain(
      `point the config's "users" at it: "users": ${JSON.stringify(written)}`,
    );
    expect(readFileSync(written, "utf8")).toContain("alice: bob");
  });

  it("a job's users file that does not exist is named with the job's path", async () => {
    const { file } = config("users-missing", {}, (c) => {
      const [gh] = c.jobs as Record<string, unknown>[];
      if (gh !== undefined) gh.users = "nowhere.yaml";
    });
    const r = await cli(["users", "--job", "gh", "--config", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/jobs > 0 > users: user map file not found: \S+nowhere\.yaml/);
  });
});
