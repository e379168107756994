import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunSummaryJson } from "../../src/cli/json-output.js";
import { jobTarget, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

/**
 * `undo` takes back what one migration created: everything but the story a person retitled
 * since (kept, exit 4), deleted (on GitHub through GraphQL `deleteIssue`, the token being an
 * admin's). A rerun does nothing; a later migration creates the removed items again,
 * exactly once.
 */
let servers: Servers;
let config: string;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=3,tasks=1,comments=1");
  config = writeConfig(tmp.dir, servers);
}, 60_000);
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

const cli = (...args: string[]) =>
  runCliProcess([...args, "--config", config, "--log-level", "warn"], {
    env: { ...servers.env },
  });

interface UndoJson {
  runId: string;
  dryRun: boolean;
  summary: { removed: number; kept: number };
  removed: { kind: string; tinypmId: string; targetId: string; how: string }[];
  kept: { kind: string; tinypmId: string; targetId: string; reason: string }[];
}

describe.each(["gh", "jr"] as const)("undo of a migration of job %s", (job) => {
  it("removes what the run created but a person's edit, once, and a migration brings it back", async () => {
    const migrated = await cli("migrate", "--job", job, "--json");
    expect(migrated.code).toBe(0);
    const run = RunSummaryJson.parse(JSON.parse(migrated.stdout));
    expect(run.summary.created).toBe(6);
    // `status` names the run, so that a person can pass it to --run.
    expect((await cli("status")).stdout).toContain(run.runId);

    const target = jobTarget(servers, job);
    try {
      const copy = await target.findByMarker({
        job,
        origin: "tinypm",
        originKind: "story",
        originId: "1",
      });
      if (copy === undefined) throw new Error("story 1 has no copy");
      await target.update({ kind: "story", id: copy.id }, { set: { title: "Kept by a person" } });
      // On Jira, where the undo deletes a story with its sub-tasks, a person's sub-task under
      // another copied story keeps that story (GitHub only closes the story: nothing is lost).
      const other = await target.findByMarker({
        job,
        origin: "tinypm",
        originKind: "story",
        originId: "2",
      });
      if (other === undefined) throw new Error("story 2 has no copy");
      const handMade =
        job === "jr"
          ? await target.create({
              kind: "task",
              parentId: other.id,
              title: "A person's sub-task",
              status: "To Do",
              assignees: [],
              labels: [],
            })
          : undefined;
      const keptCount = handMade === undefined ? 1 : 2;

      const stateFile = join(tmp.dir, "state.db");
      const before = readFileSync(stateFile);
      const writes = servers.github.stats().writes + servers.jira.stats().writes;
      const dry = await cli("undo", "--job", job, "--run", run.runId, "--dry-run", "--json");
      expect(dry.code).toBe(4);
      const planned = JSON.parse(dry.stdout) as UndoJson;
      expect(planned).toMatchObject({
        dryRun: true,
        summary: { removed: 6 - keptCount, kept: keptCount },
      });
      expect(servers.github.stats().writes + servers.jira.stats().writes).toBe(writes);
      expect(readFileSync(stateFile).equals(before)).toBe(true);

      const undone = await cli("undo", "--job", job, "--run", run.runId, "--json");
      expect(undone.code).toBe(4);
      const result = JSON.parse(undone.stdout) as UndoJson;
      expect(result.summary).toEqual({ removed: 6 - keptCount, kept: keptCount });
      expect(result.removed.map((r) => r.tinypmId).sort()).toEqual(
        planned.removed.map((r) => r.tinypmId).sort(),
      );
      const keptStories = [
        { kind: "story", tinypmId: "1", targetId: copy.id, reason: "changed since the run: title" },
        ...(handMade === undefined
          ? []
          : [
              {
                kind: "story",
                tinypmId: "2",
                targetId: other.id,
                reason: `its task ${handMade.id} (Jira) was not made by the run and would go with it`,
              },
            ]),
      ];
      expect(result.kept).toEqual(
        expect.arrayContaining(keptStories.map((k): unknown => expect.objectContaining(k))),
      );
      const still =
        handMade === undefined ? undefined : await target.get({ kind: "task", id: handMade.id });
      expect(still?.title).toBe(handMade === undefined ? undefined : "A person's sub-task");
      const after = await Promise.all(
        result.removed.map((r) => target.get({ kind: r.kind as "story", id: r.targetId })),
      );
      // Deleted on both: on GitHub through GraphQL deleteIssue, the sandbox's token being an
      // admin's (undo-containers.test.ts has a token that may only close).
      expect(after).toEqual(result.removed.map(() => undefined));
      expect(result.removed.every((r) => r.how === "deleted")).toBe(true);
      // A deleted GitHub issue's number answers 410 (Jira: none to ask).
      const statuses = await Promise.all(
        result.removed.map(async (r) =>
          job === "jr"
            ? 410
            : (
                await fetch(
                  `${servers.github.url}/repos/${servers.github.owner}/${servers.github.repo}/issues/${r.targetId}`,
                  { headers: { authorization: `token ${servers.github.token}` } },
                )
              ).status,
        ),
      );
      expect(statuses).toEqual(result.removed.map(() => 410));

      const again = await cli("undo", "--job", job, "--run", run.runId, "--json");
      expect(again.code).toBe(0);
      expect((JSON.parse(again.stdout) as UndoJson).summary).toEqual({ removed: 0, kept: 0 });

      // The copies' tinyPM items are unlinked now, those in closed iterations too: the next sync
      // reads all of tinyPM and would copy every one of them again.
      const next = await cli("plan", "--job", job, "--json");
      expect(next.code).toBe(0);
      const replan = JSON.parse(next.stdout) as {
        tinypmRead: { fullReason?: string };
        summary: { created: number };
      };
      // (Neither job has had a sync yet: the migration left the first one its checkpoints.)
      expect(replan.tinypmRead.fullReason).toBe("undone");
      // The removed items again, and (Jira) the person's sub-task, which a sync imports.
      expect(replan.summary.created).toBe(6 - keptCount + (handMade === undefined ? 0 : 1));

      const remigrated = await cli("migrate", "--job", job, "--json");
      expect(remigrated.code).toBe(0);
      // The removed items again (a migration leaves the person's sub-task where it is).
      expect(RunSummaryJson.parse(JSON.parse(remigrated.stdout)).summary.created).toBe(
        6 - keptCount,
      );
      const once = await cli("migrate", "--job", job, "--json");
      expect(RunSummaryJson.parse(JSON.parse(once.stdout)).summary.created).toBe(0);
    } finally {
      await target.close();
    }
  }, 180_000);
});

describe("undo of a run that is not the job's", () => {
  it("says which runs there are (exit 2)", async () => {
    const r = await cli("undo", "--job", "gh", "--run", "20260101T000000Z-000000");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("has no run 20260101T000000Z-000000");
  });
});
