// GitHub adapter creation throughput under GitHub's real limits: creates STORIES issues, each
// with 2 sub-issues (created, then attached by id) and 1 comment, against the GitHub sandbox with
// `rateLimits: "real"` (core 5,000/h; content creation 80/min and 500/h) on a clock running
// TIME_SCALE times faster, with the adapter's default pacing on the same scaled clock.
// Figures: creations per scaled minute while only the per-minute limit binds (the bursts of 500
// between the hourly pauses), creations per scaled hour over the whole run (the 500/h limit binds
// after that), secondary-limit rejections, and API calls per created issue or comment.
// Usage: npm run bench -- github-create   (BENCH_GITHUB_STORIES, BENCH_GITHUB_TIME_SCALE)
// The size is BENCH_GITHUB_STORIES=1000 (6,000 creations): at time scale 60 it runs about
// 12 real minutes, as the 500/h limit allows 500 creations per real minute. `npm run bench` uses
// 250 stories by default (1,500 creations, three bursts of 500, about 3 real minutes) so that the
// whole run stays under 15 minutes; the per-minute figure is measured on the same whole blocks.
// The sandbox runs in a worker thread, so that its event loop is not the one the adapter runs on.
import { once } from "node:events";
import { loadavg } from "node:os";
import { Worker } from "node:worker_threads";
import { createGithubTracker } from "../dist/adapters/github/index.js";
import { createGate } from "../dist/gate/gate.js";

const STORIES = Number(process.env.BENCH_GITHUB_STORIES ?? 250);
const TIME_SCALE = Number(process.env.BENCH_GITHUB_TIME_SCALE ?? 60);
const WORKERS = Number(process.env.BENCH_GITHUB_WORKERS ?? 8);
const PER_MINUTE = 80;
const PER_HOUR = 500;

const draft = (title, extra = {}) => ({
  kind: "story",
  title,
  status: "open",
  assignees: [],
  labels: ["bench"],
  ...extra,
});

/** Starts the sandbox in a worker thread; resolves with its url, token, owner and repo. */
async function startSandboxWorker(options) {
  const sandboxUrl = new URL("../dist/sandboxes/github/index.js", import.meta.url).href;
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    import(workerData.sandboxUrl).then(async ({ startGithubSandbox }) => {
      const s = await startGithubSandbox(workerData.options);
      parentPort.postMessage({ url: s.url, token: s.token, owner: s.owner, repo: s.repo });
      parentPort.once("message", () => s.close().then(() => parentPort.postMessage("closed")));
    });`;
  const worker = new Worker(code, { eval: true, workerData: { sandboxUrl, options } });
  const [info] = await once(worker, "message");
  return {
    ...info,
    stats: async () => (await fetch(`${info.url}/_sandbox/stats`)).json(),
    close: async () => {
      worker.postMessage("close");
      await once(worker, "message");
      await worker.terminate();
    },
  };
}

/**
 * Creations per scaled minute over whole blocks of `block` creations: from the first creation of
 * a block to the first of the block `k` blocks later, so that a last, partly used window does not
 * inflate the figure. `done` is first split at pauses longer than `gapMs` (the hourly limit), so
 * that the per-minute figure covers only the time the per-minute limit binds.
 */
function blockRate(done, block, gapMs, scaledMinutes) {
  let count = 0;
  let ms = 0;
  let start = 0;
  for (let i = 1; i <= done.length; i++) {
    if (i === done.length || done[i] - done[i - 1] > gapMs) {
      const blocks = Math.floor((i - 1 - start) / block);
      if (blocks > 0) {
        count += blocks * block;
        ms += done[start + blocks * block] - done[start];
      }
      start = i;
    }
  }
  return ms > 0 ? count / scaledMinutes(ms) : Number.NaN;
}

function pct(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

export async function run() {
  const sandbox = await startSandboxWorker({ rateLimits: "real", timeScale: TIME_SCALE });
  /** Real milliseconds each write took, request to response headers. */
  const latencies = [];
  /** Real time (ms) each successful write (here: each content creation) was answered. */
  const done = [];
  // GitHub's request gate as the CLI builds it (80/min, 500/h, completion-anchored), on the
  // sandbox's scaled clock; waits for the hourly window are taken, not refused. Its counters
  // are the run's calls (the figures below).
  const gate = createGate({
    system: "github",
    limits: {
      concurrency: WORKERS,
      writesPerMinute: PER_MINUTE,
      writesPerHour: PER_HOUR,
      writeWindows: "completion",
      timeScale: TIME_SCALE,
    },
  }).forRun({ maxWaitMs: Infinity });
  const tracker = createGithubTracker({
    baseUrl: sandbox.url,
    token: sandbox.token,
    owner: sandbox.owner,
    repo: sandbox.repo,
    timeScale: TIME_SCALE,
    gate,
    fetch: async (input, init) => {
      const t = performance.now();
      const res = await fetch(input, init);
      if (init?.method !== "GET") {
        const end = performance.now();
        latencies.push(end - t);
        if (res.status < 300) done.push(end);
      }
      return res;
    },
  });
  let next = 0;
  let failures = 0;
  const worker = async () => {
    while (next < STORIES) {
      const n = ++next;
      try {
        const story = await tracker.create(draft(`Story ${n}`));
        for (const t of [1, 2]) {
          await tracker.create(draft(`Task ${n}.${t}`, { kind: "task", parentId: story.id }));
        }
        await tracker.addComment(
          { kind: "story", id: story.id },
          { author: { login: "alice" }, createdAt: new Date().toISOString(), body: `Comment ${n}` },
        );
      } catch (error) {
        failures++;
        console.error(`story ${n}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  const loadBefore = loadavg()[0];
  const started = performance.now();
  await Promise.all(Array.from({ length: WORKERS }, worker));
  const realMs = performance.now() - started;
  const stats = await sandbox.stats();
  const calls = gate.counters();
  await tracker.close();
  await sandbox.close();

  const scaledMinutes = (ms) => (ms * TIME_SCALE) / 60_000;
  const minuteRate = blockRate(done, PER_MINUTE, (5 * 60_000) / TIME_SCALE, scaledMinutes);
  const hourRate = 60 * blockRate(done, PER_HOUR, Number.POSITIVE_INFINITY, scaledMinutes);
  const items = STORIES * 3 + STORIES; // issues + comments
  const fmt = (x, d = 1) => Number(x.toFixed(d));
  return {
    name: "github-create",
    figures: {
      stories: STORIES,
      "time scale": TIME_SCALE,
      "content creations": done.length,
      "failed stories": failures,
      "creations per scaled minute (per-minute limit binding)": fmt(minuteRate),
      "share of 80/min": `${fmt((100 * minuteRate) / PER_MINUTE)}%`,
      "creations per scaled hour (whole blocks of 500)": fmt(hourRate),
      "share of 500/h": `${fmt((100 * hourRate) / PER_HOUR)}%`,
      "secondary-limit rejections": stats.rateLimited,
      "API calls (reads/writes/304)": `${calls.reads}/${calls.writes}/${calls.notModified}`,
      "API calls per created issue or comment": fmt((calls.reads + calls.writes) / items, 3),
      "writes per content creation": fmt(calls.writes / Math.max(1, done.length), 3),
      "write latency p50/p95 (real ms)": `${fmt(pct(latencies, 0.5))}/${fmt(pct(latencies, 0.95))}`,
      "real seconds": fmt(realMs / 1000),
      "load average (1 min) before/after": `${fmt(loadBefore)} / ${fmt(loadavg()[0])}`,
    },
    targets: {
      "share of 80/min": ">= 95%",
      "secondary-limit rejections": "0",
    },
  };
}
