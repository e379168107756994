// GitHub adapter creation throughput under GitHub's real limits: creates STORIES issues, each
// with 2 sub-issues (created, then attached by id) and 1 comment, against the GitHub sandbox with
// `rateLimits: "real"` (core 5,000/h; content creation 80/min and 500/h) on a clock running
// TIME_SCALE times faster, with the adapter's default pacing on the same scaled clock.
// Figures: creations per scaled minute while only the per-minute limit binds (the first 500
// creations of each hour), creations per scaled hour over the whole run (the 500/h limit binds
// after that), secondary-limit rejections, and API calls per created issue or comment.
// Usage: npm run bench -- github-create   (BENCH_GITHUB_STORIES, BENCH_GITHUB_TIME_SCALE)
// At 1,000 stories (6,000 creations) and time scale 60 it runs about 12 real minutes: the
// 500/h limit allows 500 creations per real minute. The sandbox runs in a worker thread, so that
// its event loop is not the one the adapter runs on.
import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { createGithubTracker } from "../dist/adapters/github/index.js";

const STORIES = Number(process.env.BENCH_GITHUB_STORIES ?? 1000);
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

function pct(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

export async function run() {
  const sandbox = await startSandboxWorker({ rateLimits: "real", timeScale: TIME_SCALE });
  /** Real milliseconds each write took, request to response headers. */
  const latencies = [];
  const tracker = createGithubTracker({
    baseUrl: sandbox.url,
    token: sandbox.token,
    owner: sandbox.owner,
    repo: sandbox.repo,
    timeScale: TIME_SCALE,
    fetch: async (input, init) => {
      const t = performance.now();
      const res = await fetch(input, init);
      if (init?.method !== "GET") latencies.push(performance.now() - t);
      return res;
    },
  });
  /** Real completion time (ms) of every content creation, in order. */
  const done = [];
  const mark = (n) => {
    const t = performance.now();
    for (let i = 0; i < n; i++) done.push(t);
  };
  let next = 0;
  let failures = 0;
  const worker = async () => {
    while (next < STORIES) {
      const n = ++next;
      try {
        const story = await tracker.create(draft(`Story ${n}`));
        mark(1);
        for (const t of [1, 2]) {
          await tracker.create(draft(`Task ${n}.${t}`, { kind: "task", parentId: story.id }));
          mark(2); // the issue and the sub-issue link
        }
        await tracker.addComment(
          { kind: "story", id: story.id },
          { author: { login: "alice" }, createdAt: new Date().toISOString(), body: `Comment ${n}` },
        );
        mark(1);
      } catch (error) {
        failures++;
        console.error(`story ${n}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: WORKERS }, worker));
  const realMs = performance.now() - started;
  const stats = await sandbox.stats();
  const calls = tracker.apiCalls();
  await tracker.close();
  await sandbox.close();

  const scaledMinutes = (ms) => (ms * TIME_SCALE) / 60_000;
  const burst = done.slice(0, Math.min(PER_HOUR, done.length));
  const minuteRate =
    burst.length > 1 ? (burst.length - 1) / scaledMinutes(burst.at(-1) - burst[0]) : 0;
  const hourRate = done.length / (scaledMinutes(realMs) / 60);
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
      "creations per scaled hour (whole run)": fmt(hourRate),
      "share of 500/h": `${fmt((100 * hourRate) / PER_HOUR)}%`,
      "secondary-limit rejections": stats.rateLimited,
      "API calls (reads/writes/304)": `${calls.reads}/${calls.writes}/${calls.notModified}`,
      "API calls per created issue or comment": fmt((calls.reads + calls.writes) / items, 3),
      "writes per content creation": fmt(calls.writes / Math.max(1, done.length), 3),
      "write latency p50/p95 (real ms)": `${fmt(pct(latencies, 0.5))}/${fmt(pct(latencies, 0.95))}`,
      "real seconds": fmt(realMs / 1000),
    },
    targets: {
      "share of 80/min": ">= 95%",
      "secondary-limit rejections": "0",
    },
  };
}
