/**
 * The commands a Jira Data Center user starts with, on the built CLI against the DC sandbox
 * (issue #34): `check` (a personal access token, and a refused one), `users` (accounts by
 * username), `plan` (a dry run that writes nothing) and `demo --target jira-dc`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { MAPPINGS, tempDir } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

let tinypm: ReferenceServer;
let jira: JiraSandbox;
let config: string;
let env: Record<string, string>;
const tmp = tempDir();
const WRONG = "not-the-pat-0123456789abcdef";

beforeAll(async () => {
  [tinypm, jira] = await Promise.all([
    startReferenceServer({ generate: "stories=4,tasks=1,comments=1", seed: 3 }),
    startJiraSandbox({ deployment: "datacenter", rateLimits: "off" }),
  ]);
  config = join(tmp.dir, "config.json");
  writeFileSync(
    config,
    JSON.stringify({
      tinypm: { baseUrl: tinypm.url, tokenEnv: "TINYPM_TOKEN" },
      targets: {
        dc: {
          type: "jira",
          deployment: "datacenter",
          baseUrl: jira.url,
          project: jira.projectKey,
          tokenEnv: "JIRA_PAT",
        },
      },
      jobs: [
        {
          name: "dc",
          tinypmProject: 1,
          target: "dc",
          mapping: join(MAPPINGS, "jira.yaml"),
          direction: "both",
        },
      ],
      state: { path: join(tmp.dir, "state.db") },
    }),
  );
  env = { TINYPM_TOKEN: tinypm.token, JIRA_PAT: jira.token };
});
afterAll(async () => {
  await Promise.allSettled([tinypm.close(), jira.close()]);
  tmp.cleanup();
});

describe("Jira Data Center from the CLI", () => {
  it("check: probes the DC site with the personal access token alone (no email)", async () => {
    const r = await runCliProcess(["check", "--config", config], { env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok +job dc: dc: Jira at http:\/\/127\.0\.0\.1:\d+, project WID/m);
  });

  it("check: a refused PAT is exit 3, names JIRA_PAT and how to make a Data Center token, never shows it", async () => {
    const r = await runCliProcess(["check", "--config", config], {
      env: { ...env, JIRA_PAT: WRONG },
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^FAIL job dc: dc: .*JIRA_PAT/m);
    expect(r.stdout).toContain("Personal Access Tokens");
    // A Cloud API token (id.atlassian.com) is no use on a Data Center site.
    expect(r.stdout).not.toContain("id.atlassian.com");
    // The request went to REST v2, and the message says so.
    expect(r.stdout).toContain("GET /rest/api/2/myself");
    expect(r.stdout).not.toContain("/rest/api/3/");
    expect(r.stdout + r.stderr).not.toContain(WRONG);
  });

  it("users: the Jira side's accounts are usernames, matched by email where the profile shows it", async () => {
    const r = await runCliProcess(["users", "--config", config, "--job", "dc", "--json"], { env });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      matched: { tinypm: string; target: string; how: string }[];
      unmatched: string[];
      targetUsers: { id: string }[];
    };
    expect(doc.targetUsers.map((u) => u.id)).toEqual(
      expect.arrayContaining(["alice", "bob", "carol", "sandbox"]),
    );
    expect(doc.targetUsers.some((u) => u.id.startsWith("acc-"))).toBe(false);
    expect(doc.matched.find((m) => m.tinypm === "alice")).toMatchObject({
      target: "alice",
      how: "email",
    });
  });

  it("plan --migrate: lists the creates and writes nothing to Data Center", async () => {
    const before = jira.stats().writes;
    const r = await runCliProcess(
      ["plan", "--config", config, "--job", "dc", "--migrate", "--format", "json"],
      { env },
    );
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as { summary: { created: number; failed: number } };
    expect(plan.summary.created).toBeGreaterThanOrEqual(8);
    expect(plan.summary.failed).toBe(0);
    expect(jira.stats().writes).toBe(before);
  });
});

describe("demo --target jira-dc", () => {
  it("runs the demo against the Data Center sandbox and says so", async () => {
    const r = await runCliProcess(["demo", "--target", "jira-dc", "--stories", "3"]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[0]).toMatch(
      /^Started a tinyPM reference server with a generated project \(.*\) and a Jira Data Center sandbox \(http:\/\/127\.0\.0\.1:\d+\)/,
    );
    expect(r.stdout).toContain(
      "== 1. Migrating the generated tinyPM project to the Jira Data Center sandbox",
    );
    expect(r.stdout).toMatch(/Users: 6 of 6 tinyPM users match a Jira account/);
    expect(r.stdout).toContain("== 3. Syncing both ways");
    expect(r.stdout).toMatch(/Totals: 2 update/);
  });
});
