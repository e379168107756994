import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

/**
 * Issue 32: the write estimate of `plan --migrate` is within 5 % of the writes the `migrate`
 * after it makes, on each target, counted by the sandbox's own request log. Each target starts
 * empty: the milestones or sprints the run creates count too. Small enough (6 stories) that the
 * 4 milestones alone are over 5 % of the GitHub writes.
 */
let servers: Servers;
let config: string;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=6,tasks=1,comments=1");
  config = writeConfig(tmp.dir, servers);
}, 60_000);
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

const cli = (...a: string[]) =>
  runCliProcess([...a, "--config", config, "--log-level", "warn"], { env: { ...servers.env } });

describe.each([
  { job: "gh", system: "github" as const },
  { job: "jr", system: "jira" as const },
])("the write estimate of a migration to $system", ({ job, system }) => {
  it("is within 5 % of the writes the migration makes", async () => {
    const plan = await cli("plan", "--migrate", "--job", job, "--json");
    expect({ code: plan.code, stderr: plan.stderr }).toMatchObject({ code: 0 });
    const report = JSON.parse(plan.stdout) as { estimatedWrites?: Record<string, number> };
    const estimated = report.estimatedWrites?.[system] ?? 0;
    const before = servers[system].stats().writes;
    const run = await cli("migrate", "--job", job, "--json");
    expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 });
    const made = servers[system].stats().writes - before;
    expect(made).toBeGreaterThan(0);
    expect(
      Math.abs(estimated - made) / made,
      `estimated ${estimated}, made ${made}`,
    ).toBeLessThanOrEqual(0.05);
  }, 30_000);
});
