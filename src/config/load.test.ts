import { mkdtempSync, writeFileSync } from "node:fs";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../core/errors.js";
import { configJsonSchema } from "./json-schema.js";
import { limitsFor, readConfigFile } from "./load.js";

const ENV = {
  TINYPM_TOKEN: "tpm-secret",
  GITHUB_TOKEN: "gh-secret",
  JIRA_EMAIL: "me@example.com",
  JIRA_TOKEN: "jira-secret",
};

function write(config: unknown, extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "tps-config-"));
  for (const [name, text] of Object.entries(extra)) writeFileSync(join(dir, name), text);
  const file = join(dir, "config.json");
  writeFileSync(file, typeof config === "string" ? config : JSON.stringify(config));
  return file;
}

const base = {
  tinypm: { baseUrl: "http://127.0.0.1:1/tinypm/api", tokenEnv: "TINYPM_TOKEN" },
  targets: { gh: { type: "github", owner: "acme", repo: "widgets", tokenEnv: "GITHUB_TOKEN" } },
  jobs: [{ name: "widgets", tinypmProject: 1, target: "gh", mapping: "mappings/github.yaml" }],
};

function issuesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues.map((i) => `${i.path.join(" > ")}: ${i.message}`);
  }
  throw new Error("expected a ConfigError");
}

describe("readConfigFile", () => {
  it("reads the service keys: schedules, webhook secrets and the dashboard token (redacted)", () => {
    const file = write({
      ...base,
      targets: { gh: { ...base.targets.gh, webhookSecretEnv: "GH_HOOK" } },
      jobs: [{ ...base.jobs[0], schedule: { cron: "*/10 * * * *" } }],
      serve: { auth: { tokenEnv: "SERVE_TOKEN" } },
    });
    const loaded = readConfigFile(file, {
      env: { ...ENV, GH_HOOK: "hook-secret", SERVE_TOKEN: "dash" },
    });
    expect(loaded.jobs[0]?.job.schedule).toEqual({ cron: "*/10 * * * *" });
    expect(loaded.jobs[0]?.target.webhookSecret).toBe("hook-secret");
    expect(loaded.serveToken).toBe("dash");
    expect(loaded.secrets).toEqual(expect.arrayContaining(["hook-secret", "dash"]));
    // Only serve needs them: other commands load the file without them.
    const without = readConfigFile(file, { env: ENV });
    expect(without.jobs[0]?.target.webhookSecret).toBeUndefined();
    expect(without.serveToken).toBeUndefined();
  });

  it("names a bad schedule: a cron expression croner refuses, or an interval without a unit", () => {
    const cron = write({
      ...base,
      jobs: [{ ...base.jobs[0], schedule: { cron: "every tuesday" } }],
    });
    expect(issuesOf(() => readConfigFile(cron, { env: ENV })).join("\n")).toMatch(
      /jobs > 0 > schedule > cron: "every tuesday" is not a cron expression \(.+\); e\.g\./,
    );
    const every = write({ ...base, jobs: [{ ...base.jobs[0], schedule: { every: "5" } }] });
    expect(issuesOf(() => readConfigFile(every, { env: ENV })).join("\n")).toMatch(
      /jobs > 0 > schedule/,
    );
  });

  it("loads the shipped example with defaults, absolute paths and secrets", () => {
    const file = new URL("../../config.example.json", import.meta.url).pathname;
    const loaded = readConfigFile(file, { env: ENV });
    expect(loaded.jobs).toHaveLength(1);
    const [job] = loaded.jobs;
    expect(job?.job).toMatchObject({
      direction: "both",
      conflicts: "manual",
      onDelete: "close",
    });
    // No default here: an absent unmappedUsers lets the user-map file's policy decide (issue 14).
    expect(job?.job.unmappedUsers).toBeUndefined();
    expect(job?.target).toMatchObject({ type: "github", name: "github", token: "gh-secret" });
    expect(job?.mappingPath).toMatch(/\/mappings\/github\.yaml$/);
    expect(loaded.statePath).toMatch(/\/\.tinypm-sync\/state\.db$/);
    expect(loaded.secrets).toEqual(["tpm-secret", "gh-secret"]);
  });

  it("reports every problem at once, with paths and the valid choices", () => {
    const file = write({
      ...base,
      extra: 1,
      jobs: [
        { name: "a", tinypmProject: "one", target: "gh", mapping: "m.yaml", direction: "sideways" },
        { name: "b", tinypmProject: 2, target: "nope", mapping: "m.yaml" },
      ],
    });
    const issues = issuesOf(() => readConfigFile(file, { env: ENV }));
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^extra: unknown key "extra"/),
        expect.stringMatching(/^jobs > 0 > tinypmProject: found "one"; expected number/),
        expect.stringMatching(
          /^jobs > 0 > direction: found "sideways"; valid choices: to-target, to-tinypm, both$/,
        ),
      ]),
    );
    expect(issues).toHaveLength(3);
  });

  it("names the valid targets when a job refers to an unknown one", () => {
    const file = write({ ...base, jobs: [{ ...base.jobs[0], target: "nope" }] });
    expect(issuesOf(() => readConfigFile(file, { env: ENV }))).toEqual([
      'jobs > 0 > target: no target named "nope"; valid targets: gh',
    ]);
  });

  it("names the environment variables that are missing, never their values", () => {
    const file = write(base);
    const issues = issuesOf(() => readConfigFile(file, { env: { GITHUB_TOKEN: "gh-secret" } }));
    expect(issues).toEqual([
      'tinypm > tokenEnv: environment variable TINYPM_TOKEN is not set (needed by job "widgets"); export it before running',
    ]);
    expect(issues.join("\n")).not.toContain("gh-secret");
  });

  it("names the valid jobs when --job names an unknown one, as a usage error, not the file's", () => {
    const file = write(base);
    expect(() => readConfigFile(file, { env: ENV, jobs: ["other"] })).toThrow(
      expect.objectContaining({
        code: "usage",
        message: `no job \`other\`; jobs in ${file}: widgets`,
      }),
    );
  });

  it("refuses a file that is not JSON, saying where", () => {
    const file = write("{ nope");
    expect(() => readConfigFile(file, { env: ENV })).toThrow(/is not valid JSON/);
  });

  it("refuses a missing file with a hint", () => {
    expect(() => readConfigFile("/nonexistent/config.json", { env: ENV })).toThrow(
      /Cannot read the config file/,
    );
  });

  it("reads a Jira target's caFile relative to the config file, and names one that is missing", () => {
    const jira = {
      type: "jira",
      deployment: "datacenter",
      baseUrl: "https://jira.example.com/jira",
      project: "WID",
      tokenEnv: "JIRA_TOKEN",
      caFile: "jira-ca.pem",
    };
    const config = {
      ...base,
      targets: { jira },
      jobs: [{ ...base.jobs[0], target: "jira", mapping: "mappings/jira.yaml" }],
    };
    const file = write(config, { "jira-ca.pem": "-----BEGIN CERTIFICATE-----\n" });
    const loaded = readConfigFile(file, { env: ENV });
    expect(loaded.jobs[0]?.target).toMatchObject({
      caFile: join(file, "..", "jira-ca.pem"),
    });
    const missing = write(config);
    expect(issuesOf(() => readConfigFile(missing, { env: ENV }))).toEqual([
      `targets > jira > caFile: CA file not found: ${join(missing, "..", "jira-ca.pem")}; give the PEM file of the CA that signed the Jira site's certificate, relative to this config file`,
    ]);
  });

  it("resolves only the selected job's secrets", () => {
    const file = write({
      ...base,
      targets: {
        ...base.targets,
        j: {
          type: "jira",
          baseUrl: "https://x.atlassian.net",
          project: "P",
          emailEnv: "JIRA_EMAIL",
          tokenEnv: "JIRA_TOKEN",
        },
      },
      jobs: [...base.jobs, { name: "j", tinypmProject: 1, target: "j", mapping: "m.yaml" }],
    });
    const loaded = readConfigFile(file, {
      env: { TINYPM_TOKEN: "t", GITHUB_TOKEN: "g" },
      jobs: ["widgets"],
    });
    expect(loaded.jobs.map((j) => j.job.name)).toEqual(["widgets"]);
  });
});

describe("limitsFor", () => {
  it("defaults to the vendor's published limits and lets config lift them", () => {
    expect(limitsFor("github", undefined)).toMatchObject({
      writesPerMinute: 80,
      writesPerHour: 500,
    });
    expect(limitsFor("github", { writesPerMinute: 1000 }).writesPerMinute).toBe(1000);
  });
});

describe("schemas/config.schema.json", () => {
  it("is up to date with the zod schema (run `npm run schemas` after changing it)", () => {
    const committed = JSON.parse(
      readFileSync(new URL("../../schemas/config.schema.json", import.meta.url), "utf8"),
    ) as unknown;
    expect(committed).toEqual(configJsonSchema());
  });
});
