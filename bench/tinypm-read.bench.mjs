// tinyPM adapter read throughput (issue #3): reads a whole project of 10,000 stories and 40,000
// tasks (with comments and time entries) from the reference server, and compares the adapter's
// request rate with the server's own maximum, measured in the same run with autocannon.
//
// Fairness: the server runs in a worker thread of this process (its own event loop and core), so
// the adapter and autocannon both get the other core; both use the same concurrency and keep-alive
// connections; the server maximum is measured on the adapter's own request mix (per story: the
// detail, the task listing, and per task its detail and timesheet), after a warm-up, once before
// and once after the read, and their mean is the reference (the machine's load drifts). The
// server's event-loop utilisation during the read says which side was the bottleneck, and the
// machine's load average is recorded too. Story-detail GETs alone are reported for comparison.
// Usage: npm run bench -- tinypm-read   (BENCH_STORIES, BENCH_DURATION to scale it down)
import autocannon from "autocannon";
import { createTinypmTracker } from "../dist/adapters/tinypm/index.js";
import { createGate } from "../dist/gate/gate.js";
import { once } from "node:events";
import { availableParallelism, loadavg } from "node:os";
import { Worker } from "node:worker_threads";

const STORIES = Number(process.env.BENCH_STORIES ?? 10_000);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const CONCURRENCY = 8;
const MIX_STORIES = 50;

function cannon(url, token, requests, duration) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        headers: { "x-tinypm-token": token },
        connections: CONCURRENCY,
        duration,
        pipelining: 1,
        ...(requests && { requests }),
      },
      (error, result) => {
        if (error) reject(error);
        else if (result.non2xx + result.errors > 0)
          reject(new Error(`autocannon: ${result.non2xx} non-2xx, ${result.errors} errors`));
        else resolve(result.requests.average);
      },
    );
  });
}

function sampleRss() {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  return () => {
    clearInterval(timer);
    return Math.max(peak, process.memoryUsage().rss);
  };
}

async function startServerWorker(options) {
  const worker = new Worker(new URL("./tinypm-read-server.worker.mjs", import.meta.url), {
    workerData: options,
  });
  const [ready] = await once(worker, "message");
  const ask = async (msg) => {
    worker.postMessage(msg);
    const [answer] = await once(worker, "message");
    return answer;
  };
  return {
    ...ready,
    /** The server thread's event-loop utilisation since the previous mark (0..1). */
    utilisation: async () => (await ask("elu")).elu,
    async close() {
      worker.postMessage("close");
      await once(worker, "exit");
    },
  };
}

const ids = (xml) => [...xml.matchAll(/<id>\s*(\d+)\s*<\/id>/g)].map((m) => m[1]);

/** The adapter's request mix over the first stories of the project, for autocannon. */
async function requestMix(url, token) {
  const get = async (path) => {
    const res = await fetch(`${url}${path}`, { headers: { "x-tinypm-token": token } });
    if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
    return res.text();
  };
  // autocannon's `path` replaces the URL's path: keep the API root (e.g. /tinypm/api) in it.
  const root = new URL(url).pathname.replace(/\/+$/, "");
  const stories = ids(await get("/project/1/userstories")).slice(0, MIX_STORIES);
  const requests = [];
  for (const story of stories) {
    requests.push(
      { path: `${root}/userstory/${story}` },
      { path: `${root}/userstory/${story}/tasks` },
    );
    for (const task of ids(await get(`/userstory/${story}/tasks`))) {
      requests.push({ path: `${root}/task/${task}` }, { path: `${root}/task/${task}/timesheet` });
    }
  }
  return requests;
}

/** Server maximum on the adapter's mix and on story details, after a short warm-up. */
async function serverMax(server, mix) {
  const { url, token } = server;
  await cannon(url, token, mix, 2);
  const onMix = await cannon(url, token, mix, DURATION_S);
  const onDetail = await cannon(`${url}/userstory/7`, token, undefined, DURATION_S);
  return { onMix, onDetail };
}

async function readAll(tracker) {
  let stories = 0;
  let tasks = 0;
  for await (const item of tracker.list({})) {
    if (item.kind === "story") stories++;
    else tasks++;
  }
  return { stories, tasks };
}

export async function run() {
  const server = await startServerWorker({
    generate: `stories=${STORIES},tasks=4,comments=1`,
    seed: 1,
  });
  // A request gate with the client's concurrency and no windows: its counters are the reads.
  const gate = createGate({ system: "tinypm", limits: { concurrency: CONCURRENCY } }).forRun();
  const tracker = createTinypmTracker({
    baseUrl: server.url,
    token: server.token,
    projectId: 1,
    concurrency: CONCURRENCY,
    gate,
  });
  try {
    const mix = await requestMix(server.url, server.token);
    const load = [loadavg()[0]];
    const before = await serverMax(server, mix);
    const rssBefore = process.memoryUsage().rss;
    const stopRss = sampleRss();
    await server.utilisation();
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    const { stories, tasks } = await readAll(tracker);
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const serverBusy = await server.utilisation();
    const peakRss = stopRss();
    load.push(loadavg()[0]);
    const after = await serverMax(server, mix);
    load.push(loadavg()[0]);
    const requests = gate.counters().reads;
    const rate = requests / seconds;
    const maxRate = (before.onMix + after.onMix) / 2;
    const detailRate = (before.onDetail + after.onDetail) / 2;
    return {
      name: "tinypm-read",
      figures: {
        stories,
        tasks,
        "wall time s": Number(seconds.toFixed(1)),
        "requests made": requests,
        "adapter req/s": Math.round(rate),
        "server max req/s (autocannon, adapter's mix, before/after)": `${Math.round(before.onMix)} / ${Math.round(after.onMix)}`,
        "server max req/s (autocannon, story detail, before/after)": `${Math.round(before.onDetail)} / ${Math.round(after.onDetail)}`,
        "ratio to server max % (adapter's mix)": Math.round((100 * rate) / maxRate),
        "ratio to server max % (story detail)": Math.round((100 * rate) / detailRate),
        "server event-loop utilisation during read %": Math.round(100 * serverBusy),
        "process CPU ms per request (adapter + server threads)": Number(
          ((cpu.user + cpu.system) / 1000 / requests).toFixed(3),
        ),
        "peak RSS MiB": Math.round(peakRss / 2 ** 20),
        "RSS before read MiB": Math.round(rssBefore / 2 ** 20),
        concurrency: CONCURRENCY,
        "load average (1 min) before/during/after": load.map((l) => l.toFixed(1)).join(" / "),
        cores: availableParallelism(),
      },
      targets: { "ratio to server max % (adapter's mix)": ">= 70" },
    };
  } finally {
    await tracker.close();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await run());
}
