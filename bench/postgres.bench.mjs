// The PostgreSQL state (issue #19) against a real server this benchmark starts (initdb + pg_ctl,
// bench/postgres-server.mjs; PostgreSQL's durable defaults, as SQLite runs with synchronous=FULL).
//
// 1. workers: BENCH_PG_JOBS (default 20) quiet jobs — each its own tinyPM reference server
//    (5 stories, 1 task each) and GitHub sandbox repository, already migrated, so a run finds
//    nothing to write — served by 1, 2 and 4 `tinypm-sync serve` processes (the built CLI, each
//    its own process) sharing one PostgreSQL state (`state.urlEnv`), every job scheduled
//    `every 1s`. Each worker runs the jobs whose lease it gets. After a warm-up (every job ran
//    once on the new workers), the runs the state journals as finished over BENCH_PG_WINDOW_S
//    (default 60) s are counted: runs per minute, and how they split between the workers.
// 2. overhead: the 2,000-story migration of bench/sync.bench.mjs (BENCH_PG_STORIES, default 2000,
//    4 tasks and 2 comments each; GitHub sandbox, limits off; runEngine in this process) with the
//    SQLite state and with the PostgreSQL state, BENCH_PG_REPS (default 3) times each, the two
//    alternating so that machine noise hits both: median wall times and the overhead of
//    PostgreSQL in %, plus the SQL statements and transactions the PostgreSQL state sent per item
//    (counted by wrapping pg's Client.query in this process).
// Usage: npm run bench -- postgres   (needs a build: npm run bench builds first)
//        BENCH_PG_STORIES=200 BENCH_PG_REPS=1 BENCH_PG_WINDOW_S=15 npm run bench -- postgres
import { fork } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { createTarget, createTinypm } from "../dist/adapters/registry.js";
import { loadMapping } from "../dist/mapping/load.js";
import { createLanes } from "../dist/gate/lanes.js";
import { startReferenceServer } from "../dist/reference-server/index.js";
import { startGithubSandbox } from "../dist/sandboxes/github/index.js";
import { openPostgresState } from "../dist/state/postgres/pg-store.js";
import { openSqliteState } from "../dist/state/sqlite-state.js";
import { runEngine } from "../dist/sync/engine.js";
import { startPostgres } from "./postgres-server.mjs";

const JOBS = Number(process.env.BENCH_PG_JOBS ?? 20);
const WORKER_COUNTS = (process.env.BENCH_PG_WORKERS ?? "1,2,4").split(",").map(Number);
const WINDOW_S = Number(process.env.BENCH_PG_WINDOW_S ?? 60);
const STORIES = Number(process.env.BENCH_PG_STORIES ?? 2000);
const REPS = Number(process.env.BENCH_PG_REPS ?? 3);
// `postgres` or `sqlite` alone: one backend's migration only (e.g. to profile it with --cpu-prof).
const BACKENDS = (process.env.BENCH_PG_BACKENDS ?? "sqlite,postgres").split(",");
const CLI = new URL("../dist/cli/main.js", import.meta.url).pathname;
const GITHUB_MAPPING = new URL("../mappings/github.yaml", import.meta.url).pathname;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (x, d = 2) => Number(x.toFixed(d));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Every statement the PostgreSQL state sends goes through Client.query (Pool.query too).
// BENCH_PG_PROFILE=1 also prints how many of each statement (its first words) the migration sent.
const PROFILE = process.env.BENCH_PG_PROFILE === "1";
// Commits: each COMMIT, and each statement that may write sent outside BEGIN … COMMIT (its own
// transaction); every one is a WAL flush when it wrote.
const sql = { queries: 0, commits: 0, kinds: new Map() };
const inTransaction = new WeakSet();
const clientQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function counted(...args) {
  sql.queries++;
  const text = typeof args[0] === "string" ? args[0] : args[0]?.text;
  if (text === "BEGIN") inTransaction.add(this);
  else if (text === "COMMIT" || text === "ROLLBACK") {
    inTransaction.delete(this);
    if (text === "COMMIT") sql.commits++;
  } else if (!inTransaction.has(this) && typeof text === "string" && !/^\s*SELECT\b/i.test(text))
    sql.commits++;
  if (PROFILE && typeof text === "string") {
    const kind = text.replace(/\s+/g, " ").trim().slice(0, 70);
    sql.kinds.set(kind, (sql.kinds.get(kind) ?? 0) + 1);
  }
  return clientQuery.apply(this, args);
};

/** One job's world: a reference server and a GitHub repository. */
async function startWorld(generate, seed) {
  const tinypm = await startReferenceServer({ generate, seed });
  const github = await startGithubSandbox({ rateLimits: "off" });
  return {
    tinypm,
    github,
    close: async () => {
      await tinypm.close();
      await github.close();
    },
  };
}

/** runEngine in this process on `state`, as bench/sync.bench.mjs runs it. */
async function runOnce(w, state, mode, jobName = "bench") {
  const tinypm = createTinypm({ baseUrl: w.tinypm.url, token: w.tinypm.token, projectId: 1 });
  const target = createTarget({
    type: "github",
    baseUrl: w.github.url,
    owner: w.github.owner,
    repo: w.github.repo,
    token: w.github.token,
  });
  const started = performance.now();
  try {
    const report = await runEngine({
      mode,
      job: { name: jobName, direction: "both", conflicts: "manual", onDelete: "close" },
      targetSystem: "github",
      tinypm,
      target,
      mappingSpec: loadMapping(GITHUB_MAPPING),
      state,
      lanes: createLanes({ limits: { tinypm: { concurrency: 8 }, github: { concurrency: 8 } } }),
    });
    if (report.summary.failed > 0) throw new Error(`${mode}: ${report.summary.failed} failed`);
    return { ms: performance.now() - started, created: report.summary.created };
  } finally {
    await tinypm.close();
    await target.close();
  }
}

// ---- 2. overhead of PostgreSQL on the migration ----

async function migrationOnce(backend, server, dir, rep) {
  const w = await startWorld(`stories=${STORIES},tasks=4,comments=2`, 11);
  try {
    const state =
      backend === "sqlite"
        ? await openSqliteState({ path: join(dir, `migrate-${rep}.db`) })
        : await openPostgresState({ url: await server.createDatabase(`migrate_${rep}`) });
    const before = { ...sql };
    if (PROFILE) sql.kinds.clear();
    try {
      const { ms, created } = await runOnce(w, state, "migrate");
      if (PROFILE && backend === "postgres") {
        const items = STORIES * 5;
        const kinds = [...sql.kinds].sort((a, b) => b[1] - a[1]);
        for (const [kind, n] of kinds)
          console.log(`  [profile] ${round(n / items, 3)}/item  ${kind}`);
      }
      return {
        ms,
        created,
        queries: sql.queries - before.queries,
        commits: sql.commits - before.commits,
      };
    } finally {
      await state.close();
    }
  } finally {
    await w.close();
  }
}

async function overheadFigures(server, dir) {
  const times = { sqlite: [], postgres: [] };
  let pgRun;
  for (let rep = 0; rep < REPS; rep++) {
    // Alternate which backend goes first, so a slow spell of the machine hits both.
    const order = rep % 2 === 0 ? ["sqlite", "postgres"] : ["postgres", "sqlite"];
    for (const backend of order.filter((b) => BACKENDS.includes(b))) {
      const r = await migrationOnce(backend, server, dir, rep);
      times[backend].push(r.ms);
      if (backend === "postgres") pgRun = r;
      console.log(`  [overhead] rep ${rep + 1} ${backend}: ${round(r.ms / 1000)} s`);
    }
  }
  const items = STORIES * 5;
  const figures = {
    [`migrate ${STORIES} stories (${items} items), ${REPS}× each, alternating: SQLite wall times (s)`]:
      times.sqlite.map((t) => round(t / 1000)).join(", "),
    "migrate: PostgreSQL wall times (s)": times.postgres.map((t) => round(t / 1000)).join(", "),
  };
  if (times.sqlite.length > 0)
    figures["migrate: median SQLite (s)"] = round(median(times.sqlite) / 1000);
  if (pgRun === undefined) return figures;
  const postgres = median(times.postgres);
  figures["migrate: median PostgreSQL (s)"] = round(postgres / 1000);
  if (times.sqlite.length > 0) {
    const sqlite = median(times.sqlite);
    figures["migrate: PostgreSQL overhead (%)"] = round(((postgres - sqlite) / sqlite) * 100, 1);
  }
  figures["migrate: PostgreSQL statements per item (commits per item)"] =
    `${round(pgRun.queries / items, 2)} (${round(pgRun.commits / items, 2)})`;
  return figures;
}

// ---- 1. quiet jobs on several workers ----

/** Starts `tinypm-sync serve` on `config` in its own process; resolves once it listens. */
async function startServe(config, env) {
  const child = fork(CLI, ["serve", "--config", config, "--port", String(await freePort())], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-20000)));
  await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (/listening on http/.test(out)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`serve exited (${code}): ${stderr}`)));
  });
  return {
    pid: child.pid,
    async stop() {
      const done = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await done;
    },
  };
}

async function workerFigures(server, dir) {
  const url = await server.createDatabase("workers");
  const worlds = [];
  for (let i = 0; i < JOBS; i++)
    worlds.push(await startWorld("stories=5,tasks=1,comments=1", i + 1));
  const env = { STATE_URL: url };
  const config = { targets: {}, jobs: [], state: { urlEnv: "STATE_URL" } };
  // Migrate every job once: the runs measured below find nothing to write.
  const state = await openPostgresState({ url });
  try {
    for (const [i, w] of worlds.entries()) await runOnce(w, state, "migrate", `job${i}`);
  } finally {
    await state.close();
  }
  worlds.forEach((w, i) => {
    config.targets[`gh${i}`] = {
      type: "github",
      baseUrl: w.github.url,
      owner: w.github.owner,
      repo: w.github.repo,
      tokenEnv: `GITHUB_TOKEN_${i}`,
      limits: { writesPerMinute: 100000, writesPerHour: 1000000 },
    };
    env[`GITHUB_TOKEN_${i}`] = w.github.token;
    env[`TINYPM_TOKEN_${i}`] = w.tinypm.token;
    config.jobs.push({
      name: `job${i}`,
      tinypmProject: 1,
      tinypm: { baseUrl: w.tinypm.url, tokenEnv: `TINYPM_TOKEN_${i}` },
      target: `gh${i}`,
      mapping: GITHUB_MAPPING,
      direction: "both",
      conflicts: "manual",
      onDelete: "close",
      schedule: { every: "1s" },
    });
  });
  const configPath = join(dir, "workers.json");
  writeFileSync(configPath, JSON.stringify(config));
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const figures = {};
  try {
    for (const n of WORKER_COUNTS) {
      const writesBefore = worlds.reduce(
        (s, w) => s + w.github.stats().writes + w.tinypm.stats().writes,
        0,
      );
      const startedAt = new Date().toISOString();
      const workers = [];
      for (let i = 0; i < n; i++) workers.push(await startServe(configPath, env));
      try {
        // Warm-up: every job ran once since the workers started.
        for (;;) {
          const { rows } = await db.query(
            "SELECT count(DISTINCT job)::int AS n FROM runs WHERE started_at >= $1 AND finished_at IS NOT NULL",
            [startedAt],
          );
          if (rows[0].n >= JOBS) break;
          await sleep(500);
        }
        const from = new Date().toISOString();
        await sleep(WINDOW_S * 1000);
        const to = new Date().toISOString();
        const { rows } = await db.query(
          `SELECT pid, outcome, count(*)::int AS n FROM runs
           WHERE finished_at >= $1 AND finished_at < $2 GROUP BY pid, outcome`,
          [from, to],
        );
        const total = rows.reduce((s, r) => s + r.n, 0);
        const notOk = rows.filter((r) => r.outcome !== "ok").reduce((s, r) => s + r.n, 0);
        const perWorker = workers.map((w) =>
          rows.filter((r) => r.pid === w.pid).reduce((s, r) => s + r.n, 0),
        );
        figures[`${JOBS} quiet jobs, ${n} worker${n === 1 ? "" : "s"}: runs per minute`] = round(
          (total * 60) / WINDOW_S,
          1,
        );
        figures[`${n} worker${n === 1 ? "" : "s"}: runs per worker over ${WINDOW_S} s (not ok)`] =
          `${perWorker.join(" / ")} (${notOk})`;
        console.log(
          `  [workers] ${n}: ${total} runs in ${WINDOW_S} s, per worker ${perWorker.join(" / ")}, not ok ${notOk}`,
        );
      } finally {
        for (const w of workers) await w.stop();
      }
      const writesAfter = worlds.reduce(
        (s, w) => s + w.github.stats().writes + w.tinypm.stats().writes,
        0,
      );
      figures[`${n} worker${n === 1 ? "" : "s"}: writes to tinyPM and GitHub`] =
        writesAfter - writesBefore;
    }
    // No job ever ran on two workers at once: the journal's runs of one job never overlap.
    const { rows } = await db.query(
      `SELECT count(*)::int AS n FROM runs a JOIN runs b ON a.job = b.job AND a.id < b.id
       AND a.started_at < coalesce(b.finished_at, 'z') AND b.started_at < coalesce(a.finished_at, 'z')`,
    );
    figures["runs of one job overlapping in time (must be 0)"] = rows[0].n;
  } finally {
    await db.end();
    for (const w of worlds) await w.close();
  }
  return figures;
}

export async function run() {
  const server = await startPostgres();
  const dir = mkdtempSync(join(tmpdir(), "tps-bench-pg-"));
  try {
    const figures = {
      ...(WORKER_COUNTS.length > 0 && JOBS > 0 ? await workerFigures(server, dir) : {}),
      ...(REPS > 0 ? await overheadFigures(server, dir) : {}),
    };
    return {
      name: "PostgreSQL state: quiet jobs on several workers, overhead on the migration",
      figures,
      targets: { "PostgreSQL overhead on the migration": "< 10 %" },
    };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
