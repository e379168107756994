// The write rate a migration reaches under real latency, as a user runs it: the built CLI's
// `migrate` (its default limits) against the bundled servers started as their own processes, the
// target with `--faults latency=200` (200 ms added to every request). BENCH_APPLY_TARGETS picks
// the targets (`jira,github`, the default; or one of them).
// - Jira: BENCH_APPLY_STORIES stories (default 40) with 3 tasks and 1 comment each (160 items)
//   into `sandbox jira`; the default limits allow 1,200 writes/min (20/s) with 4 requests in
//   flight. Figures: wall time of the migrate, the sandbox's writes, writes per second over the
//   whole migrate and over the apply (the sandbox's first write to its last, polled every 50 ms),
//   and that rate as a share of the 20/s the limits allow (#30's goal: ≥ 90 %).
// - GitHub: BENCH_APPLY_GITHUB_STORIES stories (default 25) with 3 tasks and 1 comment each into
//   `sandbox github --rate-limits real` (the secondary limit: 80 content-creating requests per
//   minute, 500 per hour), through the product's own apply and its default limits (80 writes/min,
//   500/h). Time scale 1: the CLI has no scaled clock, so its pacing and the sandbox's windows
//   share the real one; keep the run under 500 content creations (the hour's limit), about 8 per
//   story. Figures: content creations (the sandbox's creating routes: issues, sub-issue links,
//   comments, milestones, labels) per minute over whole blocks of 80 — from the first creation
//   to the one 80·k later, so that the last, partly used minute does not inflate it — as a share
//   of 80/min (#30's goal: ≥ 99 %), and the secondary-limit refusals (must be 0).
// - BENCH_APPLY_LOG=<file>: the Jira migrate runs with `--log-level debug` and its log (one
//   `http` line per request, with its duration) is written there, to see what holds the apply
//   back; the figures then add the gate's slot use over the apply as the log shows it (`slotUse`):
//   mean requests in flight, idle slot-seconds (of `concurrency` 4), and the reads inside the window.
// Two rates, both stated for Jira: writes over the apply window (the sandbox's first write to its
// last), and writes over the whole migrate (reads, planning and start-up included).
// Usage: npm run bench -- apply-rate
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

const STORIES = Number(process.env.BENCH_APPLY_STORIES ?? 40);
const GITHUB_STORIES = Number(process.env.BENCH_APPLY_GITHUB_STORIES ?? 25);
const TARGETS = (process.env.BENCH_APPLY_TARGETS ?? "jira,github").split(",");
/** GitHub's secondary limit on content creation, per minute (the sandbox's `real`). */
const PER_MINUTE = 80;
const LATENCY = Number(process.env.BENCH_APPLY_LATENCY ?? 200);
const LOG = process.env.BENCH_APPLY_LOG;
const CLI = new URL("../dist/cli/main.js", import.meta.url).pathname;
const MAPPINGS = new URL("../mappings/", import.meta.url).pathname;

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

/**
 * The Jira requests of a debug log as [start, end, write?] in seconds, and how the gate's
 * `slots` were used between the first write's start and the last write's end.
 */
export function slotUse(log, slots = 4) {
  const reqs = [];
  for (const line of log.split("\n")) {
    if (!line.includes('"msg":"http"') || !line.includes('"system":"jira"')) continue;
    const d = JSON.parse(line);
    const end = Date.parse(d.time) / 1000;
    const read = d.method === "GET" || String(d.operation).endsWith("/search/jql");
    reqs.push({ start: end - d.ms / 1000, end, write: !read });
  }
  const writes = reqs.filter((r) => r.write);
  if (writes.length === 0) return undefined;
  const from = Math.min(...writes.map((r) => r.start));
  const to = Math.max(...writes.map((r) => r.end));
  const edges = reqs
    .flatMap((r) => [
      [r.start, 1],
      [r.end, -1],
    ])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let inFlight = 0;
  let last = from;
  let busy = 0;
  let idle = 0;
  for (const [t, d] of edges) {
    const a = Math.max(last, from);
    const b = Math.min(t, to);
    if (b > a) {
      busy += Math.min(inFlight, slots) * (b - a);
      idle += Math.max(0, slots - inFlight) * (b - a);
    }
    inFlight += d;
    last = t;
  }
  const inside = reqs.filter((r) => !r.write && r.end > from && r.start < to);
  const readSeconds = inside.reduce((s, r) => s + Math.min(r.end, to) - Math.max(r.start, from), 0);
  return {
    windowSeconds: to - from,
    meanInFlight: busy / (to - from),
    idleSlotSeconds: idle,
    readsInWindow: inside.length,
    readSlotSeconds: readSeconds,
  };
}

function runCli(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

export async function run() {
  const load = () =>
    loadavg()
      .map((l) => Number(l.toFixed(1)))
      .join(" ");
  const out = { figures: {}, targets: {} };
  for (const target of TARGETS) {
    const before = load();
    const r = target === "github" ? await runGithub() : await runJira();
    Object.assign(out.figures, r.figures, {
      [`${target}: load average before / after`]: `${before} / ${load()}`,
    });
    Object.assign(out.targets, r.targets);
  }
  return out;
}

async function runJira() {
  const dir = mkdtempSync(join(tmpdir(), "tps-bench-apply-"));
  const tinypm = await startServer(
    ["reference-server", "--generate", `stories=${STORIES},tasks=3,comments=1`],
    2,
  );
  const jira = await startServer(["sandbox", "jira", "--faults", `latency=${LATENCY}`], 4);
  try {
    const jiraUrl = jira.lines[0].split(" listening on ")[1];
    const config = {
      tinypm: { baseUrl: tinypm.lines[0].split(" listening on ")[1], tokenEnv: "TINYPM_TOKEN" },
      targets: {
        jira: {
          type: "jira",
          baseUrl: jiraUrl,
          project: value(jira.lines, "project"),
          emailEnv: "JIRA_EMAIL",
          tokenEnv: "JIRA_TOKEN",
        },
      },
      jobs: [
        {
          name: "jr",
          tinypmProject: 1,
          target: "jira",
          mapping: join(MAPPINGS, "jira.yaml"),
          direction: "both",
        },
      ],
      state: { path: join(dir, "state.db") },
    };
    const file = join(dir, "config.json");
    writeFileSync(file, JSON.stringify(config));
    const env = {
      TINYPM_TOKEN: value(tinypm.lines, "token"),
      JIRA_TOKEN: value(jira.lines, "token"),
      JIRA_EMAIL: value(jira.lines, "email"),
    };
    const writesNow = async () =>
      (await (await fetch(`${jiraUrl}/_sandbox/stats`)).json()).writes ?? 0;
    const before = await writesNow();
    const started = performance.now();
    // The apply's window: from the first write the sandbox counted to the last (polled).
    let first;
    let last;
    let seen = before;
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const w = await writesNow();
        if (w > seen) {
          first ??= performance.now();
          last = performance.now();
          seen = w;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const migrate = await runCli(
      ["migrate", "--config", file, "--job", "jr", "--json", "--log-level", LOG ? "debug" : "warn"],
      env,
    );
    if (LOG) writeFileSync(LOG, migrate.stderr);
    polling = false;
    await poll;
    const seconds = (performance.now() - started) / 1000;
    if (migrate.code !== 0) throw new Error(`migrate exited ${migrate.code}: ${migrate.stderr}`);
    const result = JSON.parse(migrate.stdout);
    const writes = (await writesNow()) - before;
    const rate = writes / seconds;
    // The first write is counted once answered: its own latency belongs to the window.
    const applySeconds = (last - first) / 1000 + LATENCY / 1000;
    const applyRate = writes / applySeconds;
    const slots = LOG ? slotUse(migrate.stderr) : undefined;
    const logged = slots
      ? {
          "jira: requests in flight over the apply, mean (of 4; from the log)": Number(
            slots.meanInFlight.toFixed(2),
          ),
          "jira: idle slot-seconds over the apply (from the log)": Number(
            slots.idleSlotSeconds.toFixed(1),
          ),
          "jira: reads inside the apply (slot-seconds)": `${slots.readsInWindow} (${slots.readSlotSeconds.toFixed(1)} s)`,
        }
      : {};
    return {
      figures: {
        "jira: items created": result.summary.created,
        "jira: migrate wall time (s)": Number(seconds.toFixed(1)),
        "jira: writes": writes,
        "jira: reads": result.apiCalls.jira?.reads ?? 0,
        "jira: writes per second (whole migrate)": Number(rate.toFixed(1)),
        "jira: apply window, first write to last (s)": Number(applySeconds.toFixed(1)),
        "jira: writes per second (apply)": Number(applyRate.toFixed(1)),
        "jira: share of the 20 writes/s the limits allow (apply)": `${Math.round((applyRate / 20) * 100)} %`,
        "jira: share of the 20 writes/s the limits allow (whole migrate)": `${Math.round((rate / 20) * 100)} %`,
        ...logged,
      },
      targets: { "jira: share of 20 writes/s (apply)": "≥ 90 % (#30)" },
    };
  } finally {
    tinypm.child.kill("SIGTERM");
    jira.child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The sandbox's routes that create content, as `METHOD pattern` (its stats' `byRoute` keys): the
 * ones its secondary limit counts, taken from its own route tables.
 */
async function creatingRoutes() {
  const tables = await Promise.all(
    ["comments", "sub-issues", "labels", "issues", "milestones"].map(
      (name) => import(new URL(`../dist/sandboxes/github/routes-${name}.js`, import.meta.url).href),
    ),
  );
  return tables
    .flatMap((mod) => Object.values(mod).filter(Array.isArray).flat())
    .filter((r) => r.creates === true)
    .map((r) => `${r.method} ${r.pattern}`);
}

/**
 * Creations per minute over whole blocks of `block`: from the first creation to the one
 * `block`·k later (k as large as the run allows), so that a last, partly used window does not
 * inflate it. `done`: the real times (ms) the creations were seen.
 */
export function blockRate(done, block) {
  const blocks = Math.floor((done.length - 1) / block);
  if (blocks < 1) return Number.NaN;
  return (blocks * block) / ((done[blocks * block] - done[0]) / 60_000);
}

async function runGithub() {
  const dir = mkdtempSync(join(tmpdir(), "tps-bench-apply-gh-"));
  const tinypm = await startServer(
    ["reference-server", "--generate", `stories=${GITHUB_STORIES},tasks=3,comments=1`],
    2,
  );
  const github = await startServer(
    ["sandbox", "github", "--rate-limits", "real", "--faults", `latency=${LATENCY}`],
    4,
  );
  try {
    const githubUrl = github.lines[0].split(" listening on ")[1];
    const [owner, repo] = value(github.lines, "repository").split("/");
    const config = {
      tinypm: { baseUrl: tinypm.lines[0].split(" listening on ")[1], tokenEnv: "TINYPM_TOKEN" },
      targets: {
        github: { type: "github", baseUrl: githubUrl, owner, repo, tokenEnv: "GITHUB_TOKEN" },
      },
      jobs: [
        {
          name: "gh",
          tinypmProject: 1,
          target: "github",
          mapping: join(MAPPINGS, "github.yaml"),
          direction: "both",
        },
      ],
      state: { path: join(dir, "state.db") },
    };
    const file = join(dir, "config.json");
    writeFileSync(file, JSON.stringify(config));
    const env = {
      TINYPM_TOKEN: value(tinypm.lines, "token"),
      GITHUB_TOKEN: value(github.lines, "token"),
    };
    const stats = async () => (await fetch(`${githubUrl}/_sandbox/stats`)).json();
    const creating = await creatingRoutes();
    const creations = (s) => creating.reduce((n, route) => n + (s.byRoute[route] ?? 0), 0);
    const start = await stats();
    /** The real times each content creation and each write was seen (stats polled every 50 ms). */
    const done = [];
    const written = [];
    let seen = creations(start);
    let seenWrites = start.writes;
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const now = performance.now();
        const s = await stats();
        for (const n = creations(s); seen < n; seen++) done.push(now);
        for (; seenWrites < s.writes; seenWrites++) written.push(now);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const started = performance.now();
    const migrate = await runCli(
      ["migrate", "--config", file, "--job", "gh", "--json", "--log-level", "warn"],
      env,
    );
    const seconds = (performance.now() - started) / 1000;
    polling = false;
    await poll;
    if (migrate.code !== 0) throw new Error(`migrate exited ${migrate.code}: ${migrate.stderr}`);
    const result = JSON.parse(migrate.stdout);
    const end = await stats();
    const made = creations(end) - creations(start);
    const rate = blockRate(done, PER_MINUTE);
    const fmt = (x, d = 1) => Number(x.toFixed(d));
    return {
      figures: {
        "github: items created": result.summary.created,
        "github: migrate wall time (s)": fmt(seconds),
        "github: content creations (issues, sub-issue links, comments, milestones, labels)": made,
        "github: writes / reads": `${end.writes - start.writes} / ${result.apiCalls.github?.reads ?? 0}`,
        "github: content creations per minute (whole blocks of 80)": fmt(rate),
        "github: writes of any kind per minute (whole blocks of 80)": fmt(
          blockRate(written, PER_MINUTE),
        ),
        "github: share of the 80/min secondary limit": `${fmt((100 * rate) / PER_MINUTE)} %`,
        "github: secondary-limit refusals": end.rateLimited - start.rateLimited,
      },
      targets: {
        "github: share of 80 creations/min": "≥ 99 % (#30)",
        "github: secondary-limit refusals": "0 (#30)",
      },
    };
  } finally {
    tinypm.child.kill("SIGTERM");
    github.child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}
