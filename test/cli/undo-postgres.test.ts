import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunSummaryJson } from "../../src/cli/json-output.js";
import {
  postgresSkipReason,
  startPostgres,
  type PostgresServer,
} from "../support/postgres-server.js";
import { jobTarget, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

/**
 * `undo` with the state on PostgreSQL (`state.url`): the run's creations, the undo's progress and
 * the removed links live there; the story a person retitled stays (exit 4), a second undo does
 * nothing, and a migration creates the removed items again, once.
 */
let pg: PostgresServer | undefined;
let servers: Servers;
let config: string;
let env: Record<string, string>;
const tmp = tempDir();

describe.skipIf(postgresSkipReason !== undefined)(
  `undo on a PostgreSQL state${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    beforeAll(async () => {
      const [started, s] = await Promise.all([
        startPostgres(),
        startServers("stories=3,tasks=1,comments=1"),
      ]);
      pg = started;
      servers = s;
      const url = await started.createDatabase("undo_pg");
      config = writeConfig(tmp.dir, servers);
      const c = JSON.parse(readFileSync(config, "utf8")) as { state: unknown };
      c.state = { urlEnv: "STATE_URL" };
      writeFileSync(config, JSON.stringify(c));
      env = { ...servers.env, STATE_URL: url };
    }, 120_000);
    afterAll(async () => {
      await servers.close();
      await pg?.stop();
      tmp.cleanup();
    });

    const cli = (...a: string[]) =>
      runCliProcess([...a, "--config", config, "--log-level", "warn"], { env });

    it("removes the run's issues but the one a person changed, once", async () => {
      const migrated = await cli("migrate", "--job", "gh", "--json");
      expect(migrated.code).toBe(0);
      const run = RunSummaryJson.parse(JSON.parse(migrated.stdout));
      expect(run.summary.created).toBe(6);
      expect((await cli("status")).stdout).toContain(run.runId);

      const target = jobTarget(servers, "gh");
      try {
        const copy = await target.findByMarker({
          job: "gh",
          origin: "tinypm",
          originKind: "story",
          originId: "1",
        });
        if (copy === undefined) throw new Error("story 1 has no copy");
        await target.update({ kind: "story", id: copy.id }, { set: { title: "A person's title" } });

        const undone = await cli("undo", "--job", "gh", "--run", run.runId, "--json");
        expect(undone.stderr).toBe("");
        expect(undone.code).toBe(4);
        const result = JSON.parse(undone.stdout) as {
          summary: { removed: number; kept: number };
          kept: { targetId: string; reason: string }[];
        };
        expect(result.summary).toEqual({ removed: 5, kept: 1 });
        expect(result.kept).toEqual([
          expect.objectContaining({ targetId: copy.id, reason: "changed since the run: title" }),
        ]);
        const open: string[] = [];
        for await (const i of target.list({})) if (i.marker?.undone === undefined) open.push(i.id);
        expect(open).toEqual([copy.id]);
      } finally {
        await target.close();
      }

      const again = await cli("undo", "--job", "gh", "--run", run.runId, "--json");
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ summary: { removed: 0, kept: 0 } });
      const remigrated = await cli("migrate", "--job", "gh", "--json");
      expect(remigrated.code).toBe(0);
      expect(RunSummaryJson.parse(JSON.parse(remigrated.stdout)).summary.created).toBe(5);
      const once = await cli("migrate", "--job", "gh", "--json");
      expect(RunSummaryJson.parse(JSON.parse(once.stdout)).summary.created).toBe(0);
    }, 240_000);
  },
);
