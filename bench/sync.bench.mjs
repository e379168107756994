// The sync engine end to end (runJob, the real adapters, lanes and SQLite state) against the
// tinyPM reference server and the GitHub sandbox (limits off), all in this process.
//
// 1. migrate: BENCH_SYNC_STORIES stories (default 200; the size is 2,000) with 4 tasks and
//    2 comments each (time entries as the generator makes them): wall time, items per second,
//    GitHub API calls per created item against the minimum the default mapping needs (one
//    create per item, one sub-issue link per task, one PATCH per item created closed — GitHub
//    cannot create closed issues —, one call per comment, one per milestone; time entries travel
//    in the issue body: no call), and peak RSS.
// 2. a sync with nothing changed, at each size of BENCH_SYNC_QUIET (default "100,1000" stories
//    with 4 tasks each; the sizes are 1,000 and 10,000): wall time and requests per
//    system, measured on the second sync after the migration (the first stores the checkpoint),
//    and how the cost grows between the sizes.
// Usage: npm run bench -- sync   (needs a build: npm run bench builds first)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTarget, createTinypm } from "../dist/adapters/registry.js";
import { compileMapping } from "../dist/mapping/compile.js";
import { loadMapping } from "../dist/mapping/load.js";
import { createLanes } from "../dist/queue/lanes.js";
import { startReferenceServer } from "../dist/reference-server/index.js";
import { startGithubSandbox } from "../dist/sandboxes/github/index.js";
import { openStateStore } from "../dist/state/sqlite-store.js";
import { runJob } from "../dist/sync/engine.js";

const MIGRATE_STORIES = Number(process.env.BENCH_SYNC_STORIES ?? 200);
const QUIET_SIZES = (process.env.BENCH_SYNC_QUIET ?? "100,1000").split(",").map(Number);
const MAPPING = new URL("../mappings/github.yaml", import.meta.url).pathname;

async function world(generate) {
  const tinypm = await startReferenceServer({ generate, seed: 11 });
  const github = await startGithubSandbox({ rateLimits: "off" });
  const dir = mkdtempSync(join(tmpdir(), "tps-bench-sync-"));
  const spec = loadMapping(MAPPING);
  const run = async (mode) => {
    const state = openStateStore({ path: join(dir, "state.db") });
    const tinypmTracker = createTinypm({ baseUrl: tinypm.url, token: tinypm.token, projectId: 1 });
    const target = createTarget({
      type: "github",
      baseUrl: github.url,
      owner: github.owner,
      repo: github.repo,
      token: github.token,
      writesPerMinute: 1e9,
      writesPerHour: 1e9,
    });
    const started = performance.now();
    try {
      const report = await runJob({
        mode,
        job: { name: "bench", direction: "both", conflicts: "manual", onDelete: "close" },
        targetSystem: "github",
        tinypm: tinypmTracker,
        target,
        mappingSpec: spec,
        state,
        lanes: createLanes({ limits: { tinypm: { concurrency: 8 }, github: { concurrency: 8 } } }),
      });
      if (report.summary.failed > 0) throw new Error(`${mode}: ${report.summary.failed} failed`);
      return { report, ms: performance.now() - started };
    } finally {
      state.close();
      await tinypmTracker.close();
      await target.close();
    }
  };
  return {
    tinypm,
    github,
    run,
    close: async () => {
      await tinypm.close();
      await github.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The fewest GitHub calls the default mapping needs to copy the project. */
async function minimumCalls(tinypm) {
  const mapping = compileMapping(loadMapping(MAPPING));
  const source = createTinypm({ baseUrl: tinypm.url, token: tinypm.token, projectId: 1 });
  let items = 0;
  let calls = 0;
  let timeEntries = 0;
  const milestones = new Set();
  try {
    for await (const item of source.list({})) {
      items++;
      const draft = mapping.toTarget(item);
      calls += 1 + (item.kind === "task" ? 1 : 0) + item.comments.length;
      if (draft.status.startsWith("closed")) calls++;
      if (draft.iteration !== undefined) milestones.add(draft.iteration.name);
      timeEntries += item.timeEntries.length;
    }
  } finally {
    await source.close();
  }
  return { items, calls: calls + milestones.size, timeEntries };
}

function peakRss() {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  return () => {
    clearInterval(timer);
    return Math.max(peak, process.memoryUsage().rss);
  };
}

const round = (x, d = 2) => Number(x.toFixed(d));

async function migrateFigures() {
  const w = await world(`stories=${MIGRATE_STORIES},tasks=4,comments=2`);
  try {
    const min = await minimumCalls(w.tinypm);
    const before = w.github.stats();
    const stop = peakRss();
    const { report, ms } = await w.run("migrate");
    const peak = stop();
    const after = w.github.stats();
    const writes = after.writes - before.writes;
    const requests = after.requests - before.requests;
    return {
      [`migrate ${MIGRATE_STORIES} stories: items (stories + tasks)`]: min.items,
      "migrate: comments, time entries": `${report.plan.actions.reduce((n, a) => n + (a.type === "create" ? a.comments.length : 0), 0)}, ${min.timeEntries}`,
      "migrate: wall time (s)": round(ms / 1000),
      "migrate: items per second": round(min.items / (ms / 1000), 1),
      "migrate: GitHub writes per created item": round(writes / min.items, 3),
      "migrate: GitHub requests (reads + writes) per created item": round(requests / min.items, 3),
      "migrate: minimum calls per item (mapping)": round(min.calls / min.items, 3),
      "migrate: writes / minimum": round(writes / min.calls, 3),
      "migrate: requests / minimum": round(requests / min.calls, 3),
      "migrate: peak RSS (MB)": round(peak / 1e6, 0),
      ...(MIGRATE_STORIES === 2000
        ? {}
        : {
            [`migrate: extrapolated to 2000 stories (s, linear, NOT measured)`]: round(
              (ms / 1000) * (2000 / MIGRATE_STORIES),
              0,
            ),
          }),
    };
  } finally {
    await w.close();
  }
}

async function quietSync(stories) {
  const w = await world(`stories=${stories},tasks=4,comments=0`);
  try {
    await w.run("migrate");
    await w.run("sync");
    const g0 = w.github.stats();
    const t0 = w.tinypm.stats();
    const { report, ms } = await w.run("sync");
    const g1 = w.github.stats();
    const t1 = w.tinypm.stats();
    return {
      ms,
      tinypmRequests: t1.requests - t0.requests,
      tinypmWrites: t1.writes - t0.writes,
      githubRequests: g1.requests - g0.requests,
      github304: g1.notModified - g0.notModified,
      githubWrites: g1.writes - g0.writes,
      updated: report.summary.updated + report.summary.created,
    };
  } finally {
    await w.close();
  }
}

export async function run() {
  const figures = await migrateFigures();
  const quiet = [];
  for (const size of QUIET_SIZES) {
    const q = await quietSync(size);
    quiet.push({ size, ...q });
    const label = `quiet sync ${size} stories + ${size * 4} tasks`;
    figures[`${label}: wall time (s)`] = round(q.ms / 1000);
    figures[`${label}: tinyPM requests (writes)`] = `${q.tinypmRequests} (${q.tinypmWrites})`;
    figures[`${label}: GitHub requests (304s, writes)`] =
      `${q.githubRequests} (${q.github304}, ${q.githubWrites})`;
  }
  const first = quiet[0];
  const last = quiet.at(-1);
  if (first !== undefined && last !== undefined && last.size > first.size) {
    figures[`quiet sync growth ${first.size} → ${last.size} stories: time ×`] = round(
      last.ms / first.ms,
      1,
    );
    figures[`quiet sync growth ${first.size} → ${last.size} stories: tinyPM requests ×`] = round(
      last.tinypmRequests / first.tinypmRequests,
      1,
    );
    if (last.size !== 10000)
      figures[`quiet sync at 10000 stories (s, linear from ${last.size}, NOT measured)`] = round(
        (last.ms / 1000) * (10000 / last.size),
        0,
      );
  }
  return {
    name: "sync engine: migrate and quiet sync (reference server + GitHub sandbox)",
    figures,
    targets: {
      "writes / minimum": "≤ 1.05",
      "quiet sync": "zero writes on every system; GitHub: 304s only",
    },
  };
}
