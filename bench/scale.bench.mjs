// Large projects (issue #36), measured as a user runs them: the built CLI's `migrate`, then two
// quiet `sync`s (nothing changed), each its own process under `/usr/bin/time -v` (peak RSS),
// against the reference server and the target sandbox started as their own processes, every
// limit lifted (sandbox `--rate-limits off`, and high limits in the config).
// - SCALE_STORIES stories (default 100) with SCALE_TASKS tasks (default 3) and SCALE_COMMENTS
//   comments (default 1) each: 500 stories are 2,000 items, 4,000 stories 16,000 items.
// - SCALE_TARGETS: `github` (the default), `jira`, or `github,jira`.
// Figures per target: migrate wall time and peak RSS; for the first and the second quiet sync
// after it, wall time, peak RSS, target requests per item (GitHub: and how many were 304s) and
// tinyPM requests per item; the state file's size after the migration and after the syncs.
// Goal (#36): the first quiet sync after a migration costs what a later one does (≤ 0.05 target
// requests per item; GitHub: 304s only).
// Usage: SCALE_STORIES=500 npm run bench -- scale
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

const STORIES = Number(process.env.SCALE_STORIES ?? 100);
const TASKS = Number(process.env.SCALE_TASKS ?? 3);
const COMMENTS = Number(process.env.SCALE_COMMENTS ?? 1);
const TARGETS = (process.env.SCALE_TARGETS ?? "github").split(",");
const CLI = new URL("../dist/cli/main.js", import.meta.url).pathname;
const MAPPINGS = new URL("../mappings/", import.meta.url).pathname;
const TIME = "/usr/bin/time";
const LIFTED = {
  concurrency: 8,
  writesPerMinute: 1e9,
  writesPerHour: 1e9,
  readsPerSecond: 1e9,
};

/** Starts a bundled server as its own process; resolves with its printed lines once listening. */
function startServer(args, lines) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "ignore"] });
  const out = [];
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.on("line", (line) => {
      out.push(line);
      if (out.length === lines) resolve({ child, lines: out });
    });
    child.once("exit", (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
}

const value = (lines, key) =>
  lines.find((l) => l.startsWith(`${key}: `))?.slice(key.length + 2) ?? "";
const urlOf = (lines) => lines[0].split(" listening on ")[1];

/** Runs the CLI under `/usr/bin/time -v`: exit code, stdout, wall seconds and peak RSS (MB). */
function runCli(args, env) {
  const timed = existsSync(TIME);
  const [cmd, argv] = timed
    ? [TIME, ["-v", process.execPath, CLI, ...args]]
    : [process.execPath, [CLI, ...args]];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.once("error", reject);
    child.once("exit", (code) => {
      const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1];
      resolve({
        code,
        stdout,
        stderr,
        seconds: (performance.now() - started) / 1000,
        rssMb: kb === undefined ? undefined : Math.round(Number(kb) / 1024),
      });
    });
  });
}

const stats = async (url) => (await fetch(`${new URL(url).origin}/_sandbox/stats`)).json();
const round = (x, d = 3) => Number(x.toFixed(d));
const fileMb = (path) =>
  [path, `${path}-wal`].reduce((n, p) => n + (existsSync(p) ? statSync(p).size : 0), 0) / 1e6;

async function startTarget(system) {
  if (system === "github") {
    const s = await startServer(["sandbox", "github", "--rate-limits", "off"], 4);
    const [owner, repo] = value(s.lines, "repository").split("/");
    return {
      server: s,
      url: urlOf(s.lines),
      config: {
        type: "github",
        baseUrl: urlOf(s.lines),
        owner,
        repo,
        tokenEnv: "GITHUB_TOKEN",
        limits: LIFTED,
      },
      env: { GITHUB_TOKEN: value(s.lines, "token") },
    };
  }
  const s = await startServer(["sandbox", "jira", "--rate-limits", "off"], 4);
  return {
    server: s,
    url: urlOf(s.lines),
    config: {
      type: "jira",
      baseUrl: urlOf(s.lines),
      project: value(s.lines, "project"),
      emailEnv: "JIRA_EMAIL",
      tokenEnv: "JIRA_TOKEN",
      limits: LIFTED,
    },
    env: { JIRA_TOKEN: value(s.lines, "token"), JIRA_EMAIL: value(s.lines, "email") },
  };
}

async function measure(system) {
  const dir = mkdtempSync(join(tmpdir(), "tps-bench-scale-"));
  const generate = `stories=${STORIES},tasks=${TASKS},comments=${COMMENTS}`;
  const tinypm = await startServer(["reference-server", "--generate", generate], 2);
  const target = await startTarget(system);
  const items = STORIES * (1 + TASKS);
  try {
    const tinypmUrl = urlOf(tinypm.lines);
    const statePath = join(dir, "state.db");
    const config = {
      tinypm: { baseUrl: tinypmUrl, tokenEnv: "TINYPM_TOKEN", limits: LIFTED },
      targets: { [system]: target.config },
      jobs: [
        {
          name: "scale",
          tinypmProject: 1,
          target: system,
          mapping: join(MAPPINGS, `${system}.yaml`),
          direction: "both",
        },
      ],
      state: { path: statePath },
    };
    const file = join(dir, "config.json");
    writeFileSync(file, JSON.stringify(config));
    const env = { TINYPM_TOKEN: value(tinypm.lines, "token"), ...target.env };
    const run = async (command) => {
      const t0 = await stats(target.url);
      const p0 = await stats(tinypmUrl);
      const r = await runCli(
        [command, "--config", file, "--job", "scale", "--json", "--log-level", "warn"],
        env,
      );
      if (r.code !== 0) throw new Error(`${command} exited ${r.code}: ${r.stderr.slice(-2000)}`);
      // What the run warned of (a migration that left no checkpoint says which issue, why).
      for (const line of r.stderr.split("\n")) {
        if (!/^\{.*"level":[45]0/.test(line)) continue;
        const { msg } = JSON.parse(line);
        console.log(`  ${command} warned: ${String(msg).slice(0, 400)}`);
      }
      const t1 = await stats(target.url);
      const p1 = await stats(tinypmUrl);
      return {
        ...r,
        summary: JSON.parse(r.stdout.trim().split("\n").at(-1)).summary,
        target: t1.requests - t0.requests,
        notModified: t1.notModified - t0.notModified,
        writes: t1.writes - t0.writes + (p1.writes - p0.writes),
        tinypm: p1.requests - p0.requests,
      };
    };
    const migrate = await run("migrate");
    if (migrate.summary.created !== items)
      throw new Error(`migrate created ${migrate.summary.created} of ${items} items`);
    const stateAfterMigrate = fileMb(statePath);
    const first = await run("sync");
    const later = await run("sync");
    const figures = {
      [`${STORIES} stories, ${items} items: migrate wall time (s)`]: round(migrate.seconds, 1),
      "migrate: peak RSS (MB)": migrate.rssMb,
      "migrate: target requests per item": round(migrate.target / items),
      "state size after migrate (MB)": round(stateAfterMigrate, 1),
    };
    for (const [name, r] of [
      ["first quiet sync", first],
      ["later quiet sync", later],
    ]) {
      figures[`${name}: wall time (s)`] = round(r.seconds, 1);
      figures[`${name}: peak RSS (MB)`] = r.rssMb;
      figures[`${name}: target requests per item`] = round(r.target / items, 4);
      figures[`${name}: target requests (304s)`] = `${r.target} (${r.notModified})`;
      figures[`${name}: tinyPM requests per item`] = round(r.tinypm / items);
      figures[`${name}: writes`] = r.writes;
    }
    figures["state size after the syncs (MB)"] = round(fileMb(statePath), 1);
    return figures;
  } finally {
    tinypm.child.kill("SIGTERM");
    target.server.child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run() {
  const figures = {};
  for (const system of TARGETS) {
    if (system !== "github" && system !== "jira")
      throw new Error(`SCALE_TARGETS must list github and/or jira (got "${system}")`);
    for (const [k, v] of Object.entries(await measure(system))) figures[`${system}: ${k}`] = v;
  }
  return {
    name: `scale: migrate and quiet syncs as processes, ${STORIES} stories`,
    figures,
    targets: {
      "first quiet sync": "≤ 0.05 target requests per item, GitHub 304s only (as a later one)",
      "peak RSS": "≤ 300 MB at 16,000 items (#36)",
    },
  };
}
