import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTinypm } from "../../src/adapters/registry.js";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

/**
 * A CI runner whose cache (the SQLite state) was evicted: after `migrate`, the state file is
 * deleted, and `plan --detailed-exitcode` rebuilds every link from the markers and finds nothing
 * to do (exit 0) — on GitHub and on Jira, whose default priority for an issue sent without one is
 * no edit made on Jira.
 */
let servers: Servers;
let config: string;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=2,tasks=1,comments=1");
  config = writeConfig(tmp.dir, servers);
  const tinypm = createTinypm({
    baseUrl: servers.tinypm.url,
    token: servers.tinypm.token,
    projectId: 1,
  });
  try {
    const base = { kind: "story", status: "PENDING", assignees: [], labels: [] } as const;
    await tinypm.create({ ...base, title: "No priority" });
    await tinypm.create({ ...base, title: "  Padded, empty  ", description: "", estimate: 2.5 });
    await tinypm.create({
      ...base,
      title: "Labels",
      labels: ["zeta", "alpha"],
      status: "ACCEPTED",
    });
  } finally {
    await tinypm.close();
  }
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

const cli = (...args: string[]) =>
  runCliProcess([...args, "--config", config, "--log-level", "warn"], {
    env: { ...servers.env },
  });

function loseState(): void {
  for (const suffix of ["", "-wal", "-shm"])
    rmSync(join(tmp.dir, `state.db${suffix}`), { force: true });
}

describe.each(["gh", "jr"])("a lost state, job %s", (job) => {
  it("plan --detailed-exitcode exits 0 on the links rebuilt from the markers", async () => {
    expect((await cli("migrate", "--job", job)).code).toBe(0);
    expect((await cli("plan", "--job", job, "--detailed-exitcode")).code).toBe(0);
    loseState();
    const plan = await cli("plan", "--job", job, "--detailed-exitcode", "--format", "json");
    const items = (JSON.parse(plan.stdout) as { items: { action: string }[] }).items;
    expect(items.filter((i) => i.action !== "skip")).toEqual([]);
    expect(plan.code).toBe(0);
  });
});
