// The cost of a sync that updates every story on the target: BENCH_UPDATE_STORIES stories
// (default 100, no tasks, no comments) are migrated to GitHub and to Jira; then every story's
// description is changed in tinyPM and one `sync` writes them all. Figures per updated item:
// target requests, writes and reads (GET), as the sandboxes count them, and the sync's wall time.
// An update the run planned against the item it read is checked against the item read again right
// before the write (docs/sync.md, "An edit made between the run's read and its write"): on GitHub
// that is one GET per updated issue; Jira's update already read the issue, so nothing is added.
// Usage: npm run bench -- sync-updates   (needs a build: npm run bench builds first)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTarget, createTinypm } from "../dist/adapters/registry.js";
import { loadMapping } from "../dist/mapping/load.js";
import { createLanes } from "../dist/gate/lanes.js";
import { startReferenceServer } from "../dist/reference-server/index.js";
import { startGithubSandbox } from "../dist/sandboxes/github/index.js";
import { startJiraSandbox } from "../dist/sandboxes/jira/index.js";
import { openSqliteState } from "../dist/state/sqlite-state.js";
import { runEngine } from "../dist/sync/engine.js";

const STORIES = Number(process.env.BENCH_UPDATE_STORIES ?? 100);
const mappingPath = (file) => new URL(`../mappings/${file}`, import.meta.url).pathname;

const TARGETS = {
  github: {
    label: "GitHub",
    mapping: mappingPath("github.yaml"),
    start: () => startGithubSandbox({ rateLimits: "off" }),
    tracker: (s) =>
      createTarget({
        type: "github",
        baseUrl: s.url,
        owner: s.owner,
        repo: s.repo,
        token: s.token,
      }),
  },
  jira: {
    label: "Jira",
    mapping: mappingPath("jira.yaml"),
    start: () => startJiraSandbox({ rateLimits: "off" }),
    tracker: (s) =>
      createTarget({
        type: "jira",
        baseUrl: s.url,
        project: s.projectKey,
        email: s.email,
        token: s.token,
      }),
  },
};

async function measure(system) {
  const t = TARGETS[system];
  const tinypm = await startReferenceServer({
    generate: `stories=${STORIES},tasks=0,comments=0`,
    seed: 11,
  });
  const remote = await t.start();
  const dir = mkdtempSync(join(tmpdir(), "tps-bench-updates-"));
  const spec = loadMapping(t.mapping);
  const run = async (mode) => {
    const state = await openSqliteState({ path: join(dir, "state.db") });
    const tinypmTracker = createTinypm({ baseUrl: tinypm.url, token: tinypm.token, projectId: 1 });
    const target = t.tracker(remote);
    try {
      const report = await runEngine({
        mode,
        job: { name: "bench", direction: "both", conflicts: "manual", onDelete: "close" },
        targetSystem: system,
        tinypm: tinypmTracker,
        target,
        mappingSpec: spec,
        state,
        // Every story is read (a sync reads tinyPM by tiers otherwise).
        fullScan: mode === "sync",
        lanes: createLanes({
          limits: { tinypm: { concurrency: 8 }, [system]: { concurrency: 8 } },
        }),
      });
      if (report.summary.failed > 0) throw new Error(`${mode}: ${report.summary.failed} failed`);
      return report;
    } finally {
      await state.close();
      await tinypmTracker.close();
      await target.close();
    }
  };
  try {
    await run("migrate");
    await run("sync");
    const editor = createTinypm({ baseUrl: tinypm.url, token: tinypm.token, projectId: 1 });
    try {
      let n = 0;
      for await (const item of editor.list({ kind: "story" }))
        await editor.update(
          { kind: "story", id: item.id },
          { set: { description: `Changed for the bench (${++n}).` } },
        );
    } finally {
      await editor.close();
    }
    const before = remote.stats();
    const started = performance.now();
    const report = await run("sync");
    const ms = performance.now() - started;
    const after = remote.stats();
    const updated = report.summary.updated;
    if (updated !== STORIES) throw new Error(`${updated} of ${STORIES} stories updated`);
    const per = (n) => Number((n / updated).toFixed(2));
    const gets = (after.byMethod.GET ?? 0) - (before.byMethod.GET ?? 0);
    return {
      [`${t.label}: requests per updated item`]: per(after.requests - before.requests),
      [`${t.label}: writes per updated item`]: per(after.writes - before.writes),
      [`${t.label}: reads (GET) per updated item`]: per(gets),
      [`${t.label}: sync of ${STORIES} updates (s)`]: Number((ms / 1000).toFixed(1)),
    };
  } finally {
    await tinypm.close();
    await remote.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run() {
  return { figures: { ...(await measure("github")), ...(await measure("jira")) } };
}
