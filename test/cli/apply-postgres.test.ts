import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApplyJson } from "../../src/cli/apply-output.js";
import { openState } from "../../src/state/open-state.js";
import { SavedPlanFile } from "../../src/sync/saved-plan/plan-file.js";
import {
  postgresSkipReason,
  startPostgres,
  type PostgresServer,
} from "../support/postgres-server.js";
import { until } from "../reliability/until.js";
import { duplicates, targetView } from "../reliability/snapshot.js";
import { jobTarget, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess, startCliProcess } from "./spawn.js";

/**
 * `apply` on a PostgreSQL state: the run's start and its plan's record go in one transaction
 * there too, so an apply SIGKILLed after its first issues is resumed by the next one at once
 * (the dead process's lease is free), which finishes with every planned issue once; a third
 * apply does nothing.
 */
let pg: PostgresServer | undefined;
let servers: Servers;
let config: string;
let env: Record<string, string>;
const tmp = tempDir();

describe.skipIf(postgresSkipReason !== undefined)(
  `apply on a PostgreSQL state${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    beforeAll(async () => {
      const [started, s] = await Promise.all([
        startPostgres(),
        startServers("stories=6,tasks=1,comments=0"),
      ]);
      pg = started;
      servers = s;
      const url = await started.createDatabase("apply_kill");
      // A plan reads the state without writing: the schema is made first, as a first run would.
      await (await openState({ backend: "postgres", url }, {})).close();
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

    const args = (...a: string[]): string[] => [...a, "--config", config, "--log-level", "warn"];
    const issuesCreated = (): number =>
      Object.entries(servers.github.stats().byRoute)
        .filter(([route]) => /^POST .*\/issues$/.test(route))
        .reduce((sum, [, n]) => sum + n, 0);

    it("a killed apply is resumed at once and finishes once; a third apply does nothing", async () => {
      const file = `${tmp.dir}/plan.json`;
      const saved = await runCliProcess(args("plan", "--migrate", "--job", "gh", "--save", file), {
        env,
      });
      expect(saved.stderr).toContain("Plan saved to");
      expect(saved.code).toBe(0);
      const plan = SavedPlanFile.parse(JSON.parse(readFileSync(file, "utf8")));
      expect(plan.actions).toHaveLength(12);
      // The file names the state without its password.
      expect(readFileSync(file, "utf8")).not.toContain(pg?.password ?? "?");

      const proc = startCliProcess(args("apply", file), { env });
      await until(
        "the apply's first issues",
        () => Promise.resolve(issuesCreated() >= 3 ? true : undefined),
        60_000,
        5,
      );
      proc.kill("SIGKILL");
      expect((await proc.done).code).toBeNull();

      const rerun = await runCliProcess(args("apply", file, "--json"), { env });
      expect(rerun.stderr).toBe("");
      expect(rerun.code).toBe(0);
      const run = ApplyJson.parse(JSON.parse(rerun.stdout));
      expect(run.plan.alreadyDone).toBeGreaterThan(0);
      expect(run.summary.created + run.plan.alreadyDone).toBe(12);
      const target = jobTarget(servers, "gh");
      try {
        const view = await targetView(target);
        expect(duplicates(view)).toEqual([]);
        expect(Object.keys(view.counts).sort()).toEqual(
          plan.actions.map((a) => `tinypm:${a.kind}:${a.tinypmId}`).sort(),
        );
      } finally {
        await target.close();
      }

      const writes = servers.github.stats().writes;
      const third = await runCliProcess(args("apply", file, "--json"), { env });
      expect(third.code).toBe(0);
      expect(ApplyJson.parse(JSON.parse(third.stdout)).plan.alreadyApplied).toBe(true);
      expect(servers.github.stats().writes).toBe(writes);
    }, 240_000);
  },
);
