import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTarget, createTinypm } from "../../src/adapters/registry.js";
import { RunSummaryJson, StatusJson } from "../../src/cli/json-output.js";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

/**
 * The user's view of a field edited on both sides before the state was lost (a CI cache
 * evicted): the built CLI's `sync` exits with conflicts, `conflicts list` and `status` show the
 * conflict with both values, and `conflicts resolve` settles it.
 */
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

const cli = (...args: string[]) =>
  runCliProcess([...args, "--config", config], { env: { ...servers.env } });

const MARKER = { job: "gh", origin: "tinypm", originKind: "story", originId: "1" } as const;

function githubTracker() {
  return createTarget({
    type: "github",
    tokenEnv: "GITHUB_TOKEN",
    importApi: false,
    baseUrl: servers.github.url,
    owner: servers.github.owner,
    repo: servers.github.repo,
    token: servers.github.token,
  });
}

describe("a field edited on both sides, then the state lost (CLI)", () => {
  it("sync exits 4; conflicts list and status show it; resolve settles it", async () => {
    expect(await cli("migrate", "--job", "gh", "--log-level", "warn")).toMatchObject({ code: 0 });
    const tinypm = createTinypm({
      baseUrl: servers.tinypm.url,
      token: servers.tinypm.token,
      projectId: 1,
    });
    const github = githubTracker();
    try {
      const story = await tinypm.get({ kind: "story", id: "1" });
      const copy = await github.findByMarker(MARKER);
      if (story === undefined || copy === undefined) throw new Error("story 1 not migrated");
      await tinypm.update({ kind: "story", id: "1" }, { set: { title: "Mine" }, base: story });
      await github.update({ kind: "story", id: copy.id }, { set: { title: "Theirs" } });

      for (const suffix of ["", "-wal", "-shm"])
        rmSync(join(tmp.dir, `state.db${suffix}`), { force: true });
      const sync = await cli("sync", "--job", "gh", "--json", "--log-level", "warn");
      expect(sync).toMatchObject({ code: 4 });
      expect(RunSummaryJson.parse(JSON.parse(sync.stdout)).summary.conflicts).toBe(1);

      const list = await cli("conflicts", "list", "--json");
      expect(list.code).toBe(0);
      const conflicts = JSON.parse(list.stdout) as {
        id: number;
        field: string;
        tinypmValue: unknown;
        targetValue: unknown;
      }[];
      expect(conflicts.map((c) => [c.field, c.tinypmValue, c.targetValue])).toEqual([
        ["title", "Mine", "Theirs"],
      ]);
      const status = StatusJson.parse(JSON.parse((await cli("status", "--json")).stdout));
      expect(status.jobs.find((j) => j.job === "gh")?.conflicts.map((c) => c.field)).toEqual([
        "title",
      ]);
      expect((await tinypm.get({ kind: "story", id: "1" }))?.title).toBe("Mine");
      expect((await github.get({ kind: "story", id: copy.id }))?.title).toBe("Theirs");

      const id = String(conflicts[0]?.id);
      expect(await cli("conflicts", "resolve", id, "--take", "target")).toMatchObject({ code: 0 });
      const settled = await cli("sync", "--job", "gh", "--json", "--log-level", "warn");
      expect(settled).toMatchObject({ code: 0 });
      expect((await tinypm.get({ kind: "story", id: "1" }))?.title).toBe("Theirs");
      expect((await github.get({ kind: "story", id: copy.id }))?.title).toBe("Theirs");
    } finally {
      await Promise.allSettled([tinypm.close(), github.close()]);
    }
  });
});
