import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTinypm } from "../../src/adapters/registry.js";
import { RunSummaryJson, StatusJson } from "../../src/cli/json-output.js";
import { jobTarget, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

/**
 * The run that parks a conflict says so, whatever else it wrote: a story's title and colour
 * changed in tinyPM and its title changed on the target make one item with a written colour and
 * a parked title. `plan`, `sync --json`, the exit code and `status` all count it as a conflict,
 * on the run that parks it — not only on the next one.
 */
let servers: Servers;
let config: string;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers();
  config = writeConfig(tmp.dir, servers);
}, 60_000);
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

const cli = (...args: string[]) =>
  runCliProcess([...args, "--config", config], { env: { ...servers.env } });

describe.each([
  ["gh", "1"],
  ["jr", "2"],
] as const)("job %s: a conflict parked beside a written field", (job, storyId) => {
  it("exits 4 with conflicts: 1 in plan, --json and status, on the run that parks it", async () => {
    expect(await cli("migrate", "--job", job, "--log-level", "warn")).toMatchObject({ code: 0 });
    const tinypm = createTinypm({
      baseUrl: servers.tinypm.url,
      token: servers.tinypm.token,
      projectId: 1,
    });
    const target = jobTarget(servers, job);
    try {
      const story = await tinypm.get({ kind: "story", id: storyId });
      const copy = await target.findByMarker({
        job,
        origin: "tinypm",
        originKind: "story",
        originId: storyId,
      });
      if (story === undefined || copy === undefined) throw new Error(`story ${storyId} missing`);
      const color = story.color === "RED" ? "GREEN" : "RED";
      await tinypm.update(
        { kind: "story", id: storyId },
        { set: { title: "Title in tinyPM", color }, base: story },
      );
      await target.update({ kind: "story", id: copy.id }, { set: { title: "Title on target" } });

      // \`--json\`, as \`migrate\` and \`sync\` take it: the report as JSON.
      const plan = await cli("plan", "--job", job, "--json", "--log-level", "warn");
      expect(plan.code).toBe(0);
      const planned = JSON.parse(plan.stdout) as {
        summary: RunSummaryJson["summary"];
        items: { action: string; tinypmId?: string }[];
      };
      expect(planned.summary).toMatchObject({ conflicts: 1, updated: 0, failed: 0 });
      expect(planned.items.filter((i) => i.action === "conflict").map((i) => i.tinypmId)).toEqual([
        storyId,
      ]);

      const sync = await cli("sync", "--job", job, "--json", "--log-level", "warn");
      expect(sync.code).toBe(4);
      const ran = RunSummaryJson.parse(JSON.parse(sync.stdout));
      expect(ran.summary).toEqual(planned.summary);
      // The colour was written all the same; the title waits for a person.
      expect((await target.get({ kind: "story", id: copy.id }))?.title).toBe("Title on target");
      expect((await tinypm.get({ kind: "story", id: storyId }))?.title).toBe("Title in tinyPM");

      const status = StatusJson.parse(JSON.parse((await cli("status", "--json")).stdout));
      const mine = status.jobs.find((j) => j.job === job);
      expect(mine?.conflicts.map((c) => [c.tinypmId, c.field])).toEqual([[storyId, "title"]]);
      const last = mine?.lastRuns.find((r) => r.id === ran.runId);
      expect(last).toMatchObject({ outcome: "partial", exitCode: 4 });
      expect(last?.counts.conflicts).toBe(1);

      // Still open on the next run: counted again, exit 4 again, nothing written.
      const again = await cli("sync", "--job", job, "--json", "--log-level", "warn");
      expect(again.code).toBe(4);
      expect(RunSummaryJson.parse(JSON.parse(again.stdout)).summary).toMatchObject({
        conflicts: 1,
        updated: 0,
      });

      // The target's person types tinyPM's title too: the sides agree, and the conflict no
      // longer holds. The next sync closes it, writing nothing, and exits 0.
      const open = StatusJson.parse(JSON.parse((await cli("status", "--json")).stdout)).jobs.find(
        (j) => j.job === job,
      )?.conflicts[0];
      await target.update({ kind: "story", id: copy.id }, { set: { title: "Title in tinyPM" } });
      const agreed = await cli("sync", "--job", job, "--json", "--log-level", "warn");
      expect(agreed).toMatchObject({ code: 0 });
      expect(RunSummaryJson.parse(JSON.parse(agreed.stdout)).summary).toMatchObject({
        conflicts: 0,
        updated: 0,
        failed: 0,
      });
      const after = StatusJson.parse(JSON.parse((await cli("status", "--json")).stdout));
      expect(after.jobs.find((j) => j.job === job)?.conflicts).toEqual([]);
      expect(await cli("plan", "--job", job, "--detailed-exitcode")).toMatchObject({ code: 0 });
      // A decision on it now is refused, saying why; a later edit on one side flows as usual.
      const late = await cli("conflicts", "resolve", String(open?.id), "--take", "target");
      expect(late.code).toBe(2);
      expect(late.stderr).toContain(`Conflict ${String(open?.id)} settled itself`);
      await target.update({ kind: "story", id: copy.id }, { set: { title: "Renamed later" } });
      expect(await cli("sync", "--job", job, "--log-level", "warn")).toMatchObject({ code: 0 });
      expect((await tinypm.get({ kind: "story", id: storyId }))?.title).toBe("Renamed later");
    } finally {
      await Promise.allSettled([tinypm.close(), target.close()]);
    }
  }, 240_000);
});
