// tinyPM requests per run of quiet syncs (issue #20): the sync engine end to end (runEngine, the real
// tinyPM and GitHub adapters, lanes, a SQLite state file) against the reference server behaving as
// tinyPM 2.6 and as 2.5, and the GitHub sandbox (limits off), all in this process.
//
// For each version, a project of BENCH_TIERS_STORIES stories (default 1,000; the issue's size is
// 10,000) with 4 tasks each, BENCH_TIERS_CLOSED % of them (default 90) in closed iterations, is
// migrated, then synced BENCH_TIERS_RUNS + 1 times (default 12 + 1) with nothing changed and
// `fullScanEvery` 12. The first sync after the migration reads everything (no tier record yet);
// the next 12 are one whole cycle: 11 tiered runs and the full scan that is due on the 12th. The
// figure is requests, not time: tinyPM requests per story on each run (and by route), their average
// over the cycle (target ≤ 1.5), and writes on every system (target 0).
//
// The API's minimum for a full scan (issue #20), with S stories, T tasks, B tasks of backlog
// stories and I iterations holding stories:
//   2.6: S story details + S task lists + T task details + I iteration timesheets + B task timesheets
//   2.5: S story details + S task lists + T task details (no timesheets to read)
//   2.6 with complete listings: S task lists + 2 details (one per kind, to find listings complete)
//        + I iteration timesheets + B task timesheets
// plus a constant few per run (project, iterations, users and each user, the story listing; on 2.5
// one filtered story listing per closed iteration). Backlog tasks have no iteration timesheet to
// come from, and the API has no project-wide one: each costs its own timesheet read (2.6).
// BENCH_TIERS_TARGET=memory puts the in-process memory tracker (the Tracker contract's executable
// specification, claiming to be GitHub) in the GitHub sandbox's place: the figures are tinyPM's, and
// a quiet target reports nothing changed either way, but a 10,000-story migration then takes minutes
// instead of the sandbox's hour on 2 cores. Writes on the target are the tracker's write calls.
// Usage: npm run bench -- sync-tiers   (`npm run bench -- sync` runs it with sync.bench.mjs)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTarget, createTinypm } from "../dist/adapters/registry.js";
import { createMemoryTracker } from "../dist/adapters/memory/index.js";
import { loadMapping } from "../dist/mapping/load.js";
import { createLanes } from "../dist/gate/lanes.js";
import { startReferenceServer } from "../dist/reference-server/index.js";
import { startGithubSandbox } from "../dist/sandboxes/github/index.js";
import { openSqliteState } from "../dist/state/sqlite-state.js";
import { runEngine } from "../dist/sync/engine.js";

const STORIES = Number(process.env.BENCH_TIERS_STORIES ?? 1000);
// A percentage, or `default`: the generator's own mix (2 stories in 7 closed, 2 in 7 in the backlog).
const CLOSED = process.env.BENCH_TIERS_CLOSED ?? "90";
const RUNS = Number(process.env.BENCH_TIERS_RUNS ?? 12);
// `2.6+complete`: a 2.6 server whose story and task listings carry complete elements.
const VERSIONS = (process.env.BENCH_TIERS_VERSIONS ?? "2.6,2.5,2.6+complete").split(",");
const CLOSED_SPEC = CLOSED === "default" ? "" : `,closed=${CLOSED}`;
const TARGET = process.env.BENCH_TIERS_TARGET ?? "github";
const TASKS = 4;
const FULL_SCAN_EVERY = 12;

const round = (x, d = 2) => Number(x.toFixed(d));

/** Requests per route between two stats snapshots, most first. */
function routes(before, after) {
  return Object.entries(after.byRoute)
    .map(([route, n]) => [route, n - (before.byRoute[route] ?? 0)])
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
}

async function world(version) {
  const tinypm = await startReferenceServer({
    generate: `stories=${STORIES},tasks=${TASKS},comments=0${CLOSED_SPEC}`,
    seed: 20,
    apiVersion: version.startsWith("2.5") ? "2.5" : "2.6",
    completeLists: version.endsWith("+complete"),
  });
  const github = TARGET === "memory" ? undefined : await startGithubSandbox({ rateLimits: "off" });
  const memory = TARGET === "memory" ? createMemoryTracker({ system: "github" }) : undefined;
  const dir = mkdtempSync(join(tmpdir(), "tps-bench-tiers-"));
  const spec = loadMapping(new URL("../mappings/github.yaml", import.meta.url).pathname);
  const run = async (mode) => {
    const state = await openSqliteState({ path: join(dir, "state.db") });
    const source = createTinypm({ baseUrl: tinypm.url, token: tinypm.token, projectId: 1 });
    const target =
      memory ??
      createTarget({
        type: "github",
        baseUrl: github.url,
        owner: github.owner,
        repo: github.repo,
        token: github.token,
      });
    try {
      const report = await runEngine({
        mode,
        job: { name: "bench", direction: "both", conflicts: "manual", onDelete: "close" },
        targetSystem: "github",
        tinypm: source,
        target,
        mappingSpec: spec,
        state,
        lanes: createLanes({
          limits: { tinypm: { concurrency: 8 }, github: { concurrency: 8 } },
        }),
        fullScanEvery: FULL_SCAN_EVERY,
      });
      if (report.summary.failed > 0) throw new Error(`${mode}: ${report.summary.failed} failed`);
      return report;
    } finally {
      await state.close();
      await source.close();
      await target.close();
    }
  };
  return {
    tinypm,
    targetWrites: () => (memory ? memory.calls().writes : github.stats().writes),
    run,
    close: async () => {
      await tinypm.close();
      await github?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The API's minimum for a full scan of the project as the server holds it (formula above). */
function fullScanMinimum(store, version) {
  const stories = store.storiesOf(1);
  let tasks = 0;
  let backlogTasks = 0;
  const iterations = new Set();
  for (const s of stories) {
    const n = store.tasksOf(s.id).length;
    tasks += n;
    if (s.iterationId === undefined) backlogTasks += n;
    else iterations.add(s.iterationId);
  }
  const sheets = version.startsWith("2.6") ? iterations.size + backlogTasks : 0;
  return {
    stories: stories.length,
    tasks,
    backlogTasks,
    iterations: iterations.size,
    // Complete listings: the task lists, and one detail of each kind to find them complete.
    requests: version.endsWith("+complete")
      ? stories.length + 2 + sheets
      : 2 * stories.length + tasks + sheets,
  };
}

const readWord = (info) =>
  info.complete
    ? `full (${info.fullReason})`
    : `tiered: ${info.sections.filter((s) => s.reason !== "skipped").length} of ${info.sections.length} sections`;

async function versionFigures(version) {
  const w = await world(version);
  try {
    const min = fullScanMinimum(w.tinypm.store, version);
    const m0 = w.tinypm.stats();
    await w.run("migrate");
    const m1 = w.tinypm.stats();
    const runs = [];
    for (let i = 0; i <= RUNS; i++) {
      const t0 = w.tinypm.stats();
      const g0 = w.targetWrites();
      const report = await w.run("sync");
      const t1 = w.tinypm.stats();
      const g1 = w.targetWrites();
      runs.push({
        requests: t1.requests - t0.requests,
        writes: t1.writes - t0.writes + (g1 - g0),
        changed: report.summary.created + report.summary.updated + report.summary.deleted,
        read: report.tinypmRead,
        routes: routes(t0, t1),
      });
    }
    const cycle = runs.slice(1);
    const perStory = (n) => round(n / min.stories, 3);
    const total = cycle.reduce((n, r) => n + r.requests, 0);
    const tiered = cycle.filter((r) => !r.read.complete);
    const due = cycle.find((r) => r.read.complete) ?? runs[0];
    const first = runs[0];
    const v = `${version}:`;
    const figures = {
      [`${v} project`]: `${min.stories} stories, ${min.tasks} tasks (${min.backlogTasks} in backlog stories), ${min.iterations} iterations holding stories, ${CLOSED === "default" ? "the generator's mix (2 in 7 stories closed)" : `${CLOSED} % of stories in closed iterations`}`,
      [`${v} migration: tinyPM requests (per story)`]: `${m1.requests - m0.requests} (${perStory(m1.requests - m0.requests)})`,
      [`${v} each sync: tinyPM requests, how tinyPM was read`]: runs
        .map((r, i) => `#${i + 1} ${r.requests} ${readWord(r.read)}`)
        .join("; "),
      [`${v} full quiet scan: tinyPM requests (per story)`]: `${due.requests} (${perStory(due.requests)})`,
      [`${v} full quiet scan: API minimum (per story)`]: `${min.requests} (${perStory(min.requests)})`,
      [`${v} full quiet scan: requests above the minimum`]: due.requests - min.requests,
      [`${v} full quiet scan: tinyPM requests by route`]: JSON.stringify(
        Object.fromEntries(due.routes),
      ),
      [`${v} first sync (full, no tier record): tinyPM requests`]: first.requests,
      [`${v} tiered run: tinyPM requests (per story), mean of ${tiered.length}`]: tiered.length
        ? `${round(tiered.reduce((n, r) => n + r.requests, 0) / tiered.length, 1)} (${perStory(tiered.reduce((n, r) => n + r.requests, 0) / tiered.length)})`
        : "none",
      [`${v} tiered run: tinyPM requests by route (last)`]: JSON.stringify(
        Object.fromEntries(tiered.at(-1)?.routes ?? []),
      ),
      [`${v} **${cycle.length} consecutive syncs: tinyPM requests per story, average**`]: perStory(
        total / cycle.length,
      ),
      [`${v} writes on tinyPM and GitHub over every sync, items changed`]: `${runs.reduce((n, r) => n + r.writes, 0)}, ${runs.reduce((n, r) => n + r.changed, 0)}`,
    };
    return {
      figures,
      average: total / cycle.length / min.stories,
      writes: runs.reduce((n, r) => n + r.writes, 0),
    };
  } finally {
    await w.close();
  }
}

function checkVersion(version) {
  if (!["2.6", "2.5", "2.6+complete"].includes(version))
    throw new Error(`BENCH_TIERS_VERSIONS lists 2.6, 2.5, 2.6+complete (got "${version}")`);
}

export async function run() {
  const figures = {};
  const targets = {};
  VERSIONS.forEach(checkVersion);
  for (const version of VERSIONS) {
    const result = await versionFigures(version);
    Object.assign(figures, result.figures);
    targets[`${version}: ${RUNS} consecutive syncs, tinyPM requests per story`] = "≤ 1.5";
    targets[`${version}: writes`] = "0";
    targets[`${version}: full quiet scan`] = "the API's minimum (+ a constant few per run)";
  }
  return {
    name: `tinyPM reads of quiet syncs, tiered (reference server ${VERSIONS.join(", ")} + GitHub sandbox)`,
    figures,
    targets,
  };
}

// On its own, each version's figures are printed as soon as they are measured.
if (import.meta.url === `file://${process.argv[1]}`) {
  VERSIONS.forEach(checkVersion);
  for (const version of VERSIONS) {
    const { figures } = await versionFigures(version);
    for (const [k, v] of Object.entries(figures)) console.log(`${k}: ${v}`);
  }
}
