import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGithubTracker } from "../../src/adapters/github/index.js";
import { createJiraTracker } from "../../src/adapters/jira/index.js";
import { createTinypmTracker } from "../../src/adapters/tinypm/index.js";
import type { Tracker } from "../../src/core/tracker.js";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { createRandom } from "../../src/server-kit/prng.js";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import { ensureBuilt, runCli, spawnCli } from "./cli.js";
import { startCliWorld, type CliWorld } from "./cli-world.js";
import { createFigures } from "./figures.js";
import { duplicates, listAll, targetView, tinypmView } from "./snapshot.js";

const KILLS_PER_CELL = 4;

/** Starts the CLI and SIGKILLs it after `ms`; true when the kill landed before it finished. */
function killAfter(args: string[], w: CliWorld, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawnCli(args, { env: w.env, cwd: w.dir });
    let killed = false;
    const timer = setTimeout(() => {
      killed = child.kill("SIGKILL");
    }, ms);
    child.on("close", () => {
      clearTimeout(timer);
      resolve(killed);
    });
  });
}

async function using<T>(tracker: Tracker, fn: (t: Tracker) => Promise<T>): Promise<T> {
  try {
    return await fn(tracker);
  } finally {
    await tracker.close();
  }
}

/** SIGKILL at seeded random moments of migrate, sync and the reverse migration, then a rerun. */
export function describeCrashes(target: "github" | "jira", seed: number): void {
  const figures = createFigures(`crash-${target}`);
  const job = target === "github" ? "gh" : "jr";
  const random = createRandom(seed);
  // Early kills: a rerun after the first kill has less left to do, so later kills come sooner.
  const delay = (): number => 60 + Math.floor(random() * 900);

  describe(`SIGKILL during runs against ${target}, then a rerun`, () => {
    let w: CliWorld;
    let cfg: string;
    let back: ReferenceServer;
    const tinypmTracker = (server: ReferenceServer = w.tinypm): Tracker =>
      createTinypmTracker({ baseUrl: server.url, token: server.token, projectId: 1 });
    const targetTracker = (): Tracker =>
      target === "github"
        ? createGithubTracker({
            baseUrl: w.github.url,
            token: w.github.token,
            owner: w.github.owner,
            repo: w.github.repo,
          })
        : createJiraTracker({
            baseUrl: w.jira.url,
            projectKey: w.jira.projectKey,
            email: w.jira.email,
            token: w.jira.token,
          });

    /** Kills a run of `args` KILLS_PER_CELL times, then runs it to completion. */
    async function crashThenFinish(args: string[]): Promise<void> {
      for (let i = 0; i < KILLS_PER_CELL; i++) {
        if (await killAfter(args, w, delay())) figures.add({ crashPoints: 1 });
      }
      const r = await runCli(args, { env: w.env, cwd: w.dir });
      expect(`${r.code} ${r.stderr}`).toMatch(/^0 /);
    }

    function expectConsistentState(): void {
      const state = openSqliteStore({ path: w.statePath });
      try {
        expect(state.integrityCheck()).toBe("ok");
        expect(state.pendingIntents(job)).toEqual([]);
        expect(state.pendingIntents("back")).toEqual([]);
      } finally {
        state.close();
      }
    }

    beforeAll(async () => {
      ensureBuilt();
      w = await startCliWorld({ generate: "stories=5,tasks=2,comments=1", viaProxy: false });
      back = await startReferenceServer({ generate: "empty", seed: 1 });
      cfg = w.config((c) => {
        (c.jobs as Record<string, unknown>[]).push({
          name: "back",
          tinypmProject: 1,
          target,
          mapping: (c.jobs as { mapping: string }[])[target === "github" ? 0 : 1]?.mapping,
          direction: "to-tinypm",
          // The target's items carry the migrating job's markers: bringing them back is an import
          // of another job's items, which a job does only when told to (issue 13).
          importFrom: [job],
          tinypm: { baseUrl: back.url, tokenEnv: "BACK_TOKEN" },
        });
      });
      w.env.BACK_TOKEN = back.token;
    }, 300_000);
    afterAll(async () => {
      figures.save();
      await back.close();
      await w.close();
    });

    it("migrate: nothing duplicated, nothing missing, state consistent", async () => {
      await crashThenFinish(["migrate", "--config", cfg, "--job", job]);
      const view = await using(targetTracker(), targetView);
      const source = await using(tinypmTracker(), listAll);
      const missing = source.filter((i) => !(`tinypm:${i.kind}:${i.id}` in view.counts));
      figures.add({ duplicates: duplicates(view).length, itemsLost: missing.length });
      expect(duplicates(view)).toEqual([]);
      expect(Object.keys(view.counts).sort()).toEqual(
        source.map((i) => `tinypm:${i.kind}:${i.id}`).sort(),
      );
      expectConsistentState();
    });

    it("sync: edits on both sides land once, and a further sync has nothing to do", async () => {
      const story = (await using(tinypmTracker(), listAll)).find((i) => i.kind === "story");
      if (story === undefined) throw new Error("no story");
      await using(tinypmTracker(), (t) =>
        t.update(
          { kind: "story", id: story.id },
          { set: { title: "Renamed in tinyPM" }, base: story },
        ),
      );
      await using(targetTracker(), async (t) => {
        await t.create({
          kind: "story",
          title: "Born on the target",
          status: target === "github" ? "open" : "To Do",
          assignees: [],
          labels: [],
        });
        const first = (await listAll(t)).find((i) => i.marker !== undefined && i.kind === "story");
        if (first === undefined) throw new Error("no target story");
        await t.update(
          { kind: "story", id: first.id },
          { set: { description: "Edited on the target." }, base: first },
        );
      });
      await crashThenFinish(["sync", "--config", cfg, "--job", job]);
      const items = await using(tinypmTracker(), listAll);
      expect(items.filter((i) => i.title === "Born on the target")).toHaveLength(1);
      expect(items.filter((i) => i.description === "Edited on the target.")).toHaveLength(1);
      const view = await using(targetTracker(), targetView);
      expect(duplicates(view)).toEqual([]);
      expect(
        Object.values(view.items).filter(
          (i) => (i as { title: string }).title === "Renamed in tinyPM",
        ),
      ).toHaveLength(1);
      const again = await runCli(["sync", "--config", cfg, "--job", job, "--json"], {
        env: w.env,
        cwd: w.dir,
      });
      expect(JSON.parse(again.stdout.trim().split("\n").pop() ?? "{}")).toMatchObject({
        summary: { created: 0, updated: 0, failed: 0, conflicts: 0 },
      });
      expectConsistentState();
    });

    it("reverse migration into an empty tinyPM: the same project, once", async () => {
      await crashThenFinish(["migrate", "--config", cfg, "--job", "back"]);
      const copy = (await tinypmView(back)) as { stories: { name: string }[] };
      const original = (await tinypmView(w.tinypm)) as { stories: { name: string }[] };
      const names = copy.stories.map((s) => s.name);
      expect(new Set(names).size).toBe(names.length);
      expect(copy.stories.length).toBe(original.stories.length);
      expectConsistentState();
      const lost = original.stories.length - copy.stories.length;
      figures.add({ itemsLost: Math.max(0, lost) });
    });
  });
}
