import { afterAll, describe, expect, it } from "vitest";
import { createGithubTracker } from "../../src/adapters/github/index.js";
import { createTinypmTracker } from "../../src/adapters/tinypm/index.js";
import { openState } from "../../src/state/open-state.js";
import type { PostgresServer } from "../support/postgres-server.js";
import { postgresSkipReason, startPostgres } from "../support/postgres-server.js";
import { ensureBuilt, runCli, spawnCli } from "./cli.js";
import { startCliWorld, type CliWorld } from "./cli-world.js";
import { createFigures } from "./figures.js";
import { duplicates, listAll, targetView } from "./snapshot.js";

/**
 * Issue #31 (4): a `migrate` on a PostgreSQL state SIGKILLed mid-run, then run again at once.
 * The dead run's job is free as soon as its process is gone — the rerun neither fails with
 * `state_locked` nor waits out the lease's 30 s — and it finishes the migration with every story
 * and task on GitHub once. The rerun's time to its first write is measured against a fresh run's
 * on the same machine at the same moment (a loaded machine may take seconds to start either).
 */
let pg: PostgresServer | undefined;
let world: CliWorld | undefined;
const figures = createFigures("migrate-kill-postgres");

afterAll(async () => {
  figures.save();
  await world?.close();
  await pg?.stop();
});

/** Polls `check` every 10 ms (a measurement of progress, not a wait for a fixed time). */
async function whenTrue(what: string, check: () => boolean, ms = 120_000): Promise<number> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return performance.now();
}

describe.skipIf(postgresSkipReason !== undefined)(
  `a killed migrate on PostgreSQL, rerun at once${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    it("resumes writing within 5 s and finishes with nothing lost and nothing duplicated", async () => {
      ensureBuilt();
      pg = await startPostgres();
      const url = await pg.createDatabase("migrate_kill");
      world = await startCliWorld({ generate: "stories=30,tasks=2,comments=1", viaProxy: false });
      const w = world;
      // Every create takes a moment: the kill lands with most of the migration still to do.
      w.github.setFaults("latency=40@POST /repos/**");
      const config = w.config((c) => {
        c.state = { urlEnv: "STATE_URL" };
      });
      const env = { ...w.env, STATE_URL: url };
      const args = ["migrate", "--config", config, "--job", "gh"];

      const spawnedAt = performance.now();
      const firstSpawnedAt = Date.now();
      const first = spawnCli(args, { env, cwd: w.dir });
      const firstDone = new Promise<number | null>((resolve) => {
        first.on("close", (code) => {
          resolve(code);
        });
      });
      let exited = false;
      void firstDone.then(() => (exited = true));
      // What a run needs to reach its first write on this machine now (start-up, reads, plan).
      const baselineMs = Math.round(
        (await whenTrue(
          "the first run's first write",
          () => w.github.stats().writes > 0 || exited,
        )) - spawnedAt,
      );
      await whenTrue("the first run's writes", () => w.github.stats().writes >= 10 || exited);
      expect(exited).toBe(false);
      first.kill("SIGKILL");
      await firstDone;
      const writtenBefore = w.github.stats().writes;

      const startedAt = performance.now();
      const rerunSpawnedAt = Date.now();
      let firstWriteAt = Infinity;
      let rerunOver = false;
      const watch = whenTrue("the rerun's first write", () => {
        if (w.github.stats().writes > writtenBefore) firstWriteAt = performance.now();
        return Number.isFinite(firstWriteAt) || rerunOver;
      });
      const rerun = await runCli([...args, "--json"], { env, cwd: w.dir }).finally(() => {
        rerunOver = true;
      });
      await watch;
      const toFirstWriteMs = Math.round(firstWriteAt - startedAt);
      figures.add({ crashPoints: 1 });
      process.stdout.write(
        `migrate on PostgreSQL killed after ${writtenBefore} writes; a fresh run wrote after ` +
          `${baselineMs} ms, the rerun after ${toFirstWriteMs} ms` +
          "\n",
      );

      expect(rerun.stderr).not.toContain("state_locked");
      expect(`${rerun.code} ${rerun.stderr}`).toMatch(/^0 /);
      // The claim: each run is journalled as soon as it holds the job, so the time from its
      // spawn to its journalled start is start-up plus the claim. The rerun's may exceed the
      // killed run's (a fresh claim) by less than 5 s: a lease waited out would add 30 s.
      const state = await openState({ backend: "postgres", url }, { readOnly: true });
      const runs = await state.runs({ job: "gh" }).finally(() => state.close());
      expect(runs.map((r) => r.outcome)).toEqual(["ok", "interrupted"]);
      const [rerunRun, killedRun] = runs;
      if (rerunRun === undefined || killedRun === undefined) throw new Error("two runs");
      const freshClaimMs = Date.parse(killedRun.startedAt) - firstSpawnedAt;
      const rerunClaimMs = Date.parse(rerunRun.startedAt) - rerunSpawnedAt;
      process.stdout.write(
        `spawn to journalled start: fresh run ${freshClaimMs} ms, rerun ${rerunClaimMs} ms\n`,
      );
      expect(rerunClaimMs - freshClaimMs).toBeLessThan(5_000);
      // Its first write follows far sooner than a lease waited out (30 s) would allow, whatever
      // more it reads than a fresh run (the intents the killed run left) on a loaded machine.
      expect(toFirstWriteMs - baselineMs).toBeLessThan(15_000);

      // Every tinyPM story and task on GitHub once, by its marker.
      const tinypm = createTinypmTracker({
        baseUrl: w.tinypm.url,
        token: w.tinypm.token,
        projectId: 1,
      });
      const github = createGithubTracker({
        baseUrl: w.github.url,
        token: w.github.token,
        owner: w.github.owner,
        repo: w.github.repo,
      });
      try {
        const source = await listAll(tinypm);
        const view = await targetView(github);
        const missing = source.filter((i) => !(`tinypm:${i.kind}:${i.id}` in view.counts));
        figures.add({ duplicates: duplicates(view).length, itemsLost: missing.length });
        expect(source.length).toBe(90);
        expect(duplicates(view)).toEqual([]);
        expect(Object.keys(view.counts).sort()).toEqual(
          source.map((i) => `tinypm:${i.kind}:${i.id}`).sort(),
        );
      } finally {
        await tinypm.close();
        await github.close();
      }
    }, 300_000);
  },
);
