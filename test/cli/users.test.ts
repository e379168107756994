/**
 * `tinypm-sync users`: the match table (snapshot), its JSON, and the `--write` skeleton that,
 * used as is after filling one placeholder, makes the next plan assign that user.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseUserMap } from "../../src/mapping/users.js";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { tempDir, writeConfig } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

let tinypm: ReferenceServer;
let github: GithubSandbox;
let jira: JiraSandbox;
let config: string;
let env: Record<string, string>;
const tmp = tempDir();

beforeAll(async () => {
  [tinypm, github, jira] = await Promise.all([
    startReferenceServer({ generate: "stories=8,tasks=2,comments=0", seed: 5 }),
    startGithubSandbox({ rateLimits: "off" }),
    startJiraSandbox({
      users: [
        { login: "alice", emailVisible: true },
        { login: "bob", emailVisible: false },
        { login: "carol", emailVisible: true },
        { login: "carol2", email: "carol@example.com", emailVisible: true },
        { login: "dave", emailVisible: true, assignable: false },
        { login: "erin", displayName: "Zoë Ångström", emailVisible: false },
      ],
    }),
  ]);
  config = writeConfig(tmp.dir, { tinypm, github, jira });
  env = {
    TINYPM_TOKEN: tinypm.token,
    GITHUB_TOKEN: github.token,
    JIRA_EMAIL: jira.email,
    JIRA_TOKEN: jira.token,
  };
});
afterAll(async () => {
  await Promise.allSettled([tinypm.close(), github.close(), jira.close()]);
  tmp.cleanup();
});

const cli = (args: string[], file = config) =>
  runCliProcess([...args, "--config", file], { env: { ...env } });

describe("users", () => {
  it("prints both user lists and the match table", async () => {
    const r = await cli(["users", "--job", "jr"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatchSnapshot();
  });

  it("--json gives matched (by what), ambiguous (with candidates) and unmatched", async () => {
    const r = await cli(["users", "--job", "jr", "--json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(doc.matched).toEqual([
      { tinypm: "alice", target: "acc-alice", how: "email", reason: "email alice@example.com" },
      { tinypm: "erin", target: "acc-erin", how: "name", reason: 'name "Zoë Ångström"' },
    ]);
    expect(doc.ambiguous).toEqual([
      { tinypm: "carol", rule: "email", candidates: ["acc-carol", "acc-carol2"], sharedWith: [] },
    ]);
    expect(doc.unmatched).toEqual(["bob", "carol", "dave", "frank"]);
    expect((doc.targetUsers as { id: string }[]).map((u) => u.id)).not.toContain("acc-dave");
  });

  it("--write gives a user map that, with one placeholder filled, makes the next plan assign", async () => {
    const file = join(tmp.dir, "users.yaml");
    const w = await cli(["users", "--job", "jr", "--write", file]);
    expect(w.code).toBe(0);
    const text = readFileSync(file, "utf8");
    expect(parseUserMap(text, file).users).toEqual({ alice: "acc-alice", erin: "acc-erin" });
    expect(text).toMatch(/^ {2}# bob: "" {2}# bob "Bob Müller" <bob@example.com>; unmatched$/m);
    expect(text).toContain('# carol: ""  # carol');
    expect(text).toContain("ambiguous by email: acc-carol");

    const before = await cli(["plan", "--migrate", "--job", "jr", "--format", "json"]);
    const lossBefore = (JSON.parse(before.stdout) as PlanJson).users.assigneeLoss;
    expect(lossBefore?.byUser.bob).toBeGreaterThan(0);

    writeFileSync(file, text.replace('# bob: ""', "bob: acc-bob"));
    const withMap = JSON.parse(readFileSync(config, "utf8")) as Record<string, unknown>;
    const config2 = join(tmp.dir, "config-users.json");
    writeFileSync(config2, JSON.stringify({ ...withMap, users: file }));
    const after = await cli(["plan", "--migrate", "--job", "jr", "--format", "json"], config2);
    expect(after.code).toBe(0);
    const plan = JSON.parse(after.stdout) as PlanJson;
    expect(plan.users.matches).toContainEqual({
      tinypm: "bob",
      target: "acc-bob",
      how: "map-file",
      reason: "users.bob: acc-bob",
    });
    expect(plan.users.unmapped).not.toContain("bob");
    expect(plan.users.assigneeLoss?.byUser.bob).toBeUndefined();
  });

  it("plan and migrate under policy fail stop before any write, with exit code 2", async () => {
    const base = JSON.parse(readFileSync(config, "utf8")) as { jobs: Record<string, unknown>[] };
    const failing = join(tmp.dir, "config-fail.json");
    writeFileSync(
      failing,
      JSON.stringify({ ...base, jobs: base.jobs.map((j) => ({ ...j, unmappedUsers: "fail" })) }),
    );
    const writesBefore = jira.stats().writes;
    const r = await cli(["migrate", "--job", "jr"], failing);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /Stopped before writing anything: \d+ items? lose an assignee on jira/,
    );
    expect(jira.stats().writes).toBe(writesBefore);
  });
});

describe("users policy precedence (explicit config value > user-map file policy > skip)", () => {
  const withPolicies = (name: string, filePolicy: string, configPolicy?: string): string => {
    const map = join(tmp.dir, `${name}.yaml`);
    writeFileSync(map, `policy: ${filePolicy}\nusers:\n  alice: acc-alice\n`);
    const base = JSON.parse(readFileSync(config, "utf8")) as { jobs: Record<string, unknown>[] };
    const jobs = base.jobs.map((j) => {
      const { unmappedUsers: _dropped, ...rest } = j;
      return configPolicy === undefined ? rest : { ...rest, unmappedUsers: configPolicy };
    });
    const file = join(tmp.dir, `${name}.json`);
    writeFileSync(file, JSON.stringify({ ...base, users: map, jobs }));
    return file;
  };

  it("the user-map file's policy applies when the config names none", async () => {
    const file = withPolicies("file-fail", "fail");
    const writesBefore = jira.stats().writes;
    const r = await cli(["migrate", "--job", "jr"], file);
    expect(r.stderr).toMatch(
      /Stopped before writing anything: \d+ items? lose an assignee on jira/,
    );
    expect(r.code).toBe(2);
    expect(jira.stats().writes).toBe(writesBefore);
    const u = await cli(["users", "--job", "jr", "--json"], file);
    expect((JSON.parse(u.stdout) as { policy: string }).policy).toBe("fail");
  });

  it("an explicit config value beats the file's policy", async () => {
    const file = withPolicies("config-skip", "fail", "skip");
    const r = await cli(["plan", "--migrate", "--job", "jr", "--format", "json"], file);
    expect(r.stderr).not.toMatch(/Stopped before writing anything/);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as PlanJson).users.assigneeLoss?.policy).toBe("skip");
  });
});

interface PlanJson {
  users: {
    matches: { tinypm: string; target: string; how: string; reason?: string }[];
    unmapped: string[];
    assigneeLoss?: { items: number; policy: string; byUser: Record<string, number> };
  };
}
