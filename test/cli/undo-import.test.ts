import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTinypm } from "../../src/adapters/registry.js";
import { RunSummaryJson } from "../../src/cli/json-output.js";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { jobTarget, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

/**
 * `undo` of a to-tinypm run: the tinyPM stories it imported from GitHub are deleted with their
 * links, but the one a person retitled in tinyPM since (kept, exit 4). A rerun does nothing; a
 * later import brings the removed ones back, exactly once.
 */
let servers: Servers;
let empty: ReferenceServer;
let config: string;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=1,tasks=0,comments=0");
  empty = await startReferenceServer({ generate: "empty", seed: 1 });
  const file = writeConfig(tmp.dir, servers);
  const cfg = JSON.parse(readFileSync(file, "utf8")) as {
    jobs: Record<string, unknown>[];
  };
  const gh = cfg.jobs[0] ?? {};
  cfg.jobs = [
    {
      ...gh,
      name: "back",
      direction: "to-tinypm",
      tinypm: { baseUrl: empty.url, tokenEnv: "EMPTY_TOKEN" },
    },
  ];
  writeFileSync(file, JSON.stringify(cfg));
  config = file;
}, 60_000);
afterAll(async () => {
  await Promise.allSettled([servers.close(), empty.close()]);
  tmp.cleanup();
});

const cli = (...args: string[]) =>
  runCliProcess([...args, "--config", config, "--log-level", "warn"], {
    env: { ...servers.env, EMPTY_TOKEN: empty.token },
  });

describe("undo of a to-tinypm run", () => {
  it("deletes the imported tinyPM stories but the one a person changed", async () => {
    const github = jobTarget(servers, "gh");
    const tinypm = createTinypm({ baseUrl: empty.url, token: empty.token, projectId: 1 });
    try {
      for (const title of ["First", "Second", "Third"])
        await github.create({ kind: "story", title, status: "open", assignees: [], labels: [] });
      const imported = await cli("migrate", "--job", "back", "--json");
      expect(imported.code).toBe(0);
      const run = RunSummaryJson.parse(JSON.parse(imported.stdout));
      expect(run.summary.created).toBe(3);
      const stories = await collect(tinypm.list({}));
      expect(stories.map((s) => s.title).sort()).toEqual(["First", "Second", "Third"]);
      const first = stories.find((s) => s.title === "First");
      if (first === undefined) throw new Error("First was not imported");
      await tinypm.update(
        { kind: "story", id: first.id },
        { set: { title: "First, edited in tinyPM" }, base: first },
      );
      // A task a person added in tinyPM under an imported story: deleting the story would take
      // it along, so the story stays.
      const second = stories.find((s) => s.title === "Second");
      if (second === undefined) throw new Error("Second was not imported");
      const handMade = await tinypm.create({
        kind: "task",
        parentId: second.id,
        title: "A person's task",
        status: "TO DO",
        assignees: [],
        labels: [],
      });

      const undone = await cli("undo", "--job", "back", "--run", run.runId, "--json");
      expect(undone.code).toBe(4);
      const result = JSON.parse(undone.stdout) as {
        summary: { removed: number; kept: number };
        kept: { tinypmId: string; side: string; reason: string }[];
      };
      expect(result.summary).toEqual({ removed: 1, kept: 2 });
      expect(result.kept).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            tinypmId: first.id,
            side: "tinypm",
            reason: "changed since the run: title",
          }),
          expect.objectContaining({
            tinypmId: second.id,
            side: "tinypm",
            reason: `its task ${handMade.id} (tinyPM) was not made by the run and would go with it`,
          }),
        ]),
      );
      const left = await collect(tinypm.list({ kind: "story" }));
      expect(left.map((s) => s.title).sort()).toEqual(["First, edited in tinyPM", "Second"]);
      expect(
        (await collect(tinypm.list({ kind: "task", parentId: second.id }))).map((t) => t.id),
      ).toEqual([handMade.id]);

      const again = await cli("undo", "--job", "back", "--run", run.runId, "--json");
      expect(again.code).toBe(0);

      const reimported = await cli("migrate", "--job", "back", "--json");
      expect(reimported.code).toBe(0);
      expect(RunSummaryJson.parse(JSON.parse(reimported.stdout)).summary.created).toBe(1);
      const once = await cli("migrate", "--job", "back", "--json");
      expect(RunSummaryJson.parse(JSON.parse(once.stdout)).summary.created).toBe(0);
      const after = await collect(tinypm.list({ kind: "story" }));
      const titles = after.map((s) => s.title).sort();
      expect(titles).toEqual(["First, edited in tinyPM", "Second", "Third"]);
      // The issue whose import was taken back names its new copy, no longer undone.
      const issue = (await collect(github.list({ kind: "story" }))).find(
        (i) => i.title === "Third",
      );
      expect(issue?.marker?.undone).toBeUndefined();
      expect(issue?.marker?.tinypmId).toBe(after.find((s) => s.title === "Third")?.id);
    } finally {
      await Promise.allSettled([github.close(), tinypm.close()]);
    }
  }, 180_000);
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const i of items) out.push(i);
  return out;
}
