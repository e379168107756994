// Connections an idle `tinypm-sync serve` worker opens to its PostgreSQL state (issue #19): one
// serve process (the built CLI) with one job scheduled hourly, against a tinyPM reference server
// and a GitHub sandbox. Once its startup run ended, the worker only polls: a state check every
// 2 s, the run requests of other workers every 5 s, its heartbeat every 10 s. Over
// BENCH_IDLE_S (default 60) s this counts the backends the server started for the state's
// database (`log_connections`, one log line each) and the transactions it committed there
// (pg_stat_database.xact_commit: the polls, as the server saw them).
// Usage: npm run bench -- serve-connections   (needs a build: npm run bench builds first)
import { fork } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { startReferenceServer } from "../dist/reference-server/index.js";
import { startGithubSandbox } from "../dist/sandboxes/github/index.js";
import { startPostgres } from "./postgres-server.mjs";

const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 60);
const CLI = new URL("../dist/cli/main.js", import.meta.url).pathname;
const GITHUB_MAPPING = new URL("../mappings/github.yaml", import.meta.url).pathname;
const DATABASE = "idle_serve";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function onServer(server, fn) {
  const client = new pg.Client({ connectionString: server.url("postgres") });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Backends started on the state's database so far, by the server's log. */
function connections(server) {
  const line = new RegExp(`connection authorized: .*\\bdatabase=${DATABASE}(\\s|$)`);
  return readFileSync(server.logFile, "utf8")
    .split("\n")
    .filter((l) => line.test(l)).length;
}

const commits = (server) =>
  onServer(server, async (c) => {
    const { rows } = await c.query(
      "SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = $1",
      [DATABASE],
    );
    return Number(rows[0]?.n ?? 0);
  });

export async function run() {
  const server = await startPostgres();
  const dir = mkdtempSync(join(tmpdir(), "tps-bench-conn-"));
  const tinypm = await startReferenceServer({ generate: "stories=5,tasks=1,comments=1", seed: 1 });
  const github = await startGithubSandbox({ rateLimits: "off" });
  let child;
  try {
    const url = await server.createDatabase(DATABASE);
    await onServer(server, async (c) => {
      await c.query("ALTER SYSTEM SET log_connections = on");
      await c.query("SELECT pg_reload_conf()");
    });
    const config = {
      targets: {
        gh: {
          type: "github",
          baseUrl: github.url,
          owner: github.owner,
          repo: github.repo,
          tokenEnv: "GITHUB_TOKEN",
        },
      },
      jobs: [
        {
          name: "idle",
          tinypmProject: 1,
          tinypm: { baseUrl: tinypm.url, tokenEnv: "TINYPM_TOKEN" },
          target: "gh",
          mapping: GITHUB_MAPPING,
          schedule: { every: "1h" },
        },
      ],
      state: { urlEnv: "STATE_URL" },
    };
    const configPath = join(dir, "config.json");
    writeFileSync(configPath, JSON.stringify(config));
    const port = await freePort();
    child = fork(CLI, ["serve", "--config", configPath, "--port", String(port)], {
      env: {
        ...process.env,
        STATE_URL: url,
        GITHUB_TOKEN: github.token,
        TINYPM_TOKEN: tinypm.token,
      },
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-20000)));
    const exited = new Promise((_, reject) =>
      child.once("exit", (code) => reject(new Error(`serve exited (${code}): ${stderr}`))),
    );
    // The startup run ended: from now on the worker is idle.
    await Promise.race([
      exited,
      (async () => {
        for (;;) {
          const res = await fetch(`http://127.0.0.1:${port}/api/jobs`).catch(() => undefined);
          if (res?.ok) {
            const { jobs } = await res.json();
            if (jobs[0]?.lastRun?.outcome === "ok") return;
          }
          await sleep(250);
        }
      })(),
    ]);
    const before = { connections: connections(server), commits: await commits(server) };
    await sleep(IDLE_S * 1000);
    const opened = connections(server) - before.connections;
    // The statistics of a backend gone idle reach the view within 10 s (counted past the window).
    await sleep(11_000);
    const committed = (await commits(server)) - before.commits;
    const figures = {
      [`connections opened by one idle serve worker in ${IDLE_S} s`]: opened,
      [`transactions it committed (its polls, over ${IDLE_S} s + 11 s)`]: committed,
    };
    console.log(`  [connections] ${opened} opened, ${committed} transactions`);
    return { figures };
  } finally {
    if (child !== undefined && child.exitCode === null) {
      const done = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await done;
    }
    await tinypm.close();
    await github.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
