// The sync engine end to end (runEngine, the real adapters, lanes and SQLite state) against the
// tinyPM reference server and a target sandbox (limits off), all in this process. The target is
// BENCH_SYNC_TARGET: `github` (the default), `jira`, or `both` (GitHub, then Jira; every figure
// name is then prefixed with `github: ` or `jira: `).
//
// 1. migrate: BENCH_SYNC_STORIES stories (default 200; the size is 2,000) with 4 tasks and
//    2 comments each (time entries as the generator makes them): wall time, items per second,
//    target API calls per created item against the minimum the default mapping needs, and peak
//    RSS.
//    GitHub (mappings/github.yaml): one create per item, one sub-issue link per task, one PATCH
//    per item created closed — GitHub cannot create closed issues —, one call per comment, one
//    per milestone; time entries travel in the issue body: no call.
//    Jira (mappings/jira.yaml, the sandbox's default workflow), with S stories and T sub-tasks:
//      minimum = B + Σ_items max(0, d(status) − 1) + sprints + comments + worklogs
//    - B: bulk creates (POST /rest/api/3/issue/bulk, ≤ 50 issues each). A sub-task names its
//      story's key, so the first call holds stories alone; after it, sub-tasks and stories may
//      share calls: B = max(⌈(S+T)/50⌉, 1 + ⌈T/50⌉) (⌈S/50⌉ without sub-tasks).
//    - No call for what the create itself carries: summary, ADF description, priority, story
//      points, labels (tags and color-*), assignee, parent, the sprint (the Sprint field takes a
//      sprint id in the create's fields, so no POST /rest/agile/1.0/sprint/{id}/issue is needed;
//      sub-tasks follow their story's sprint) and the `tinypm-sync` entity property (marker and
//      metadata: position, startedAt, completedAt, acceptingUser) in the create's `properties`.
//    - Status: only transitions change it. d(status) is the fewest transitions from the initial
//      status (To Do): In Progress 1, Rejected 1, Testing 2, Done 3. Each element of a bulk
//      create may carry one `transition` ("to move the issues … to a workflow step other than the
//      default start step"), with the resolution it requires, so an item costs d − 1 calls.
//    - sprints: one POST /rest/agile/1.0/sprint per iteration the stories use (the board has none).
//    - one POST …/comment per comment and one POST …/worklog per time entry (no bulk endpoints).
//    Neither minimum counts reads (a client needs a constant few: Jira's field list, board and
//    transitions); requests / minimum shows what the reads cost on top of the writes.
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
import { createLanes } from "../dist/gate/lanes.js";
import { startReferenceServer } from "../dist/reference-server/index.js";
import { startGithubSandbox } from "../dist/sandboxes/github/index.js";
import { startJiraSandbox } from "../dist/sandboxes/jira/index.js";
import { DEFAULT_WORKFLOW, findStatus, shortestPath } from "../dist/sandboxes/jira/workflow.js";
import { openSqliteState } from "../dist/state/sqlite-state.js";
import { runEngine } from "../dist/sync/engine.js";

const MIGRATE_STORIES = Number(process.env.BENCH_SYNC_STORIES ?? 200);
const QUIET_SIZES = (process.env.BENCH_SYNC_QUIET ?? "100,1000").split(",").map(Number);
const TARGET = process.env.BENCH_SYNC_TARGET ?? "github";
const mappingPath = (file) => new URL(`../mappings/${file}`, import.meta.url).pathname;

const TARGETS = {
  github: {
    label: "GitHub",
    mapping: mappingPath("github.yaml"),
    start: () => startGithubSandbox({ rateLimits: "off" }),
    tracker: (sandbox) =>
      createTarget({
        type: "github",
        baseUrl: sandbox.url,
        owner: sandbox.owner,
        repo: sandbox.repo,
        token: sandbox.token,
      }),
    minimum: githubMinimum,
  },
  jira: {
    label: "Jira",
    mapping: mappingPath("jira.yaml"),
    start: () => startJiraSandbox({ rateLimits: "off" }),
    // No request gate is passed (as with GitHub): every request is sent once, unpaced, as the
    // sandbox's limits are off.
    tracker: (sandbox) =>
      createTarget({
        type: "jira",
        baseUrl: sandbox.url,
        project: sandbox.projectKey,
        email: sandbox.email,
        token: sandbox.token,
      }),
    minimum: jiraMinimum,
  },
};

async function world(system, generate) {
  const t = TARGETS[system];
  const tinypm = await startReferenceServer({ generate, seed: 11 });
  const remote = await t.start();
  const dir = mkdtempSync(join(tmpdir(), "tps-bench-sync-"));
  const spec = loadMapping(t.mapping);
  const run = async (mode) => {
    const state = await openSqliteState({ path: join(dir, "state.db") });
    const tinypmTracker = createTinypm({ baseUrl: tinypm.url, token: tinypm.token, projectId: 1 });
    const target = t.tracker(remote);
    const started = performance.now();
    try {
      const report = await runEngine({
        mode,
        job: { name: "bench", direction: "both", conflicts: "manual", onDelete: "close" },
        targetSystem: system,
        tinypm: tinypmTracker,
        target,
        mappingSpec: spec,
        state,
        lanes: createLanes({
          limits: { tinypm: { concurrency: 8 }, [system]: { concurrency: 8 } },
        }),
      });
      if (report.summary.failed > 0) throw new Error(`${mode}: ${report.summary.failed} failed`);
      return { report, ms: performance.now() - started };
    } finally {
      await state.close();
      await tinypmTracker.close();
      await target.close();
    }
  };
  return {
    tinypm,
    remote,
    run,
    close: async () => {
      await tinypm.close();
      await remote.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Reads the tinyPM project once, handing each item and its target draft to `visit`. */
async function eachItem(tinypm, mapping, visit) {
  const source = createTinypm({ baseUrl: tinypm.url, token: tinypm.token, projectId: 1 });
  try {
    for await (const item of source.list({})) visit(item, mapping.toTarget(item));
  } finally {
    await source.close();
  }
}

/** The fewest GitHub calls the default mapping needs to copy the project. */
async function githubMinimum(tinypm) {
  const mapping = compileMapping(loadMapping(TARGETS.github.mapping));
  let items = 0;
  let calls = 0;
  let timeEntries = 0;
  const milestones = new Set();
  await eachItem(tinypm, mapping, (item, draft) => {
    items++;
    calls += 1 + (item.kind === "task" ? 1 : 0) + item.comments.length;
    if (draft.status.startsWith("closed")) calls++;
    if (draft.iteration !== undefined) milestones.add(draft.iteration.name);
    timeEntries += item.timeEntries.length;
  });
  return { items, calls: calls + milestones.size, timeEntries };
}

/** The fewest Jira calls the default mapping needs to copy the project (formula at the top). */
async function jiraMinimum(tinypm) {
  const mapping = compileMapping(loadMapping(TARGETS.jira.mapping));
  const workflow = DEFAULT_WORKFLOW;
  let stories = 0;
  let tasks = 0;
  let transitions = 0;
  let comments = 0;
  let worklogs = 0;
  let timeEntries = 0;
  const sprints = new Set();
  await eachItem(tinypm, mapping, (item, draft) => {
    if (item.kind === "task") tasks++;
    else stories++;
    const status = findStatus(workflow, draft.status);
    const path = status && shortestPath(workflow, workflow.initialStatusId, status.id);
    if (path === undefined) throw new Error(`Jira status "${draft.status}" is unreachable`);
    transitions += Math.max(0, path.length - 1);
    if (item.kind === "story" && draft.iteration !== undefined) sprints.add(draft.iteration.name);
    comments += item.comments.length;
    worklogs += mapping.timeEntriesToTarget(item).length;
    timeEntries += item.timeEntries.length;
  });
  const bulk =
    tasks === 0
      ? Math.ceil(stories / 50)
      : Math.max(Math.ceil((stories + tasks) / 50), 1 + Math.ceil(tasks / 50));
  const calls = bulk + transitions + sprints.size + comments + worklogs;
  return {
    items: stories + tasks,
    calls,
    timeEntries,
    breakdown: `${calls} = ${bulk} bulk creates + ${transitions} transitions + ${sprints.size} sprints + ${comments} comments + ${worklogs} worklogs`,
  };
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

/** Requests per route between two stats snapshots, most first. */
function routeDiff(before, after) {
  const diff = Object.entries(after.byRoute)
    .map(([route, n]) => [route, n - (before.byRoute[route] ?? 0)])
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  return JSON.stringify(Object.fromEntries(diff));
}

async function migrateFigures(system) {
  const { label, minimum } = TARGETS[system];
  const w = await world(system, `stories=${MIGRATE_STORIES},tasks=4,comments=2`);
  try {
    const min = await minimum(w.tinypm);
    const before = w.remote.stats();
    const stop = peakRss();
    const { report, ms } = await w.run("migrate");
    const peak = stop();
    const after = w.remote.stats();
    const writes = after.writes - before.writes;
    const requests = after.requests - before.requests;
    return {
      [`migrate ${MIGRATE_STORIES} stories: items (stories + tasks)`]: min.items,
      "migrate: comments, time entries": `${report.plan.actions.reduce((n, a) => n + (a.type === "create" ? a.comments.length : 0), 0)}, ${min.timeEntries}`,
      "migrate: wall time (s)": round(ms / 1000),
      "migrate: items per second": round(min.items / (ms / 1000), 1),
      [`migrate: ${label} writes per created item`]: round(writes / min.items, 3),
      [`migrate: ${label} requests (reads + writes) per created item`]: round(
        requests / min.items,
        3,
      ),
      "migrate: minimum calls per item (mapping)": round(min.calls / min.items, 3),
      ...(min.breakdown === undefined ? {} : { "migrate: minimum calls (mapping)": min.breakdown }),
      "migrate: writes / minimum": round(writes / min.calls, 3),
      "migrate: requests / minimum": round(requests / min.calls, 3),
      ...(system === "github"
        ? {}
        : {
            [`migrate: ${label} writes, requests`]: `${writes}, ${requests}`,
            [`migrate: ${label} requests by route`]: routeDiff(before, after),
          }),
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

async function quietSync(system, stories) {
  const w = await world(system, `stories=${stories},tasks=4,comments=0`);
  try {
    await w.run("migrate");
    await w.run("sync");
    const r0 = w.remote.stats();
    const t0 = w.tinypm.stats();
    const { report, ms } = await w.run("sync");
    const r1 = w.remote.stats();
    const t1 = w.tinypm.stats();
    return {
      ms,
      tinypmRequests: t1.requests - t0.requests,
      tinypmWrites: t1.writes - t0.writes,
      remoteRequests: r1.requests - r0.requests,
      remote304: r1.notModified - r0.notModified,
      remoteWrites: r1.writes - r0.writes,
      updated: report.summary.updated + report.summary.created,
    };
  } finally {
    await w.close();
  }
}

async function targetFigures(system) {
  const { label } = TARGETS[system];
  const figures = await migrateFigures(system);
  const quiet = [];
  for (const size of QUIET_SIZES) {
    const q = await quietSync(system, size);
    quiet.push({ size, ...q });
    const name = `quiet sync ${size} stories + ${size * 4} tasks`;
    figures[`${name}: wall time (s)`] = round(q.ms / 1000);
    figures[`${name}: tinyPM requests (writes)`] = `${q.tinypmRequests} (${q.tinypmWrites})`;
    if (system === "github")
      figures[`${name}: GitHub requests (304s, writes)`] =
        `${q.remoteRequests} (${q.remote304}, ${q.remoteWrites})`;
    else figures[`${name}: ${label} requests (writes)`] = `${q.remoteRequests} (${q.remoteWrites})`;
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
  const targets = {
    "writes / minimum": "≤ 1.05",
    "quiet sync":
      system === "github"
        ? "zero writes on every system; GitHub: 304s only"
        : "zero writes on every system",
  };
  return { figures, targets };
}

const prefixed = (prefix, record) =>
  Object.fromEntries(Object.entries(record).map(([k, v]) => [`${prefix}${k}`, v]));

export async function run() {
  const systems = TARGET === "both" ? ["github", "jira"] : [TARGET];
  for (const s of systems)
    if (TARGETS[s] === undefined)
      throw new Error(`BENCH_SYNC_TARGET must be github, jira or both (got "${TARGET}")`);
  const figures = {};
  const targets = {};
  for (const system of systems) {
    const result = await targetFigures(system);
    const prefix = systems.length > 1 ? `${system}: ` : "";
    Object.assign(figures, prefixed(prefix, result.figures));
    Object.assign(targets, prefixed(prefix, result.targets));
  }
  const sandboxes =
    systems.length > 1 ? "GitHub and Jira sandboxes" : `${TARGETS[systems[0]].label} sandbox`;
  return {
    name: `sync engine: migrate and quiet sync (reference server + ${sandboxes})`,
    figures,
    targets,
  };
}
