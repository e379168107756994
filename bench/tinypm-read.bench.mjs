// tinyPM adapter read throughput: reads a whole project of 10,000 stories and 40,000 tasks (with
// comments and time entries) from the reference server started in-process, and compares the
// adapter's request rate with the server's own maximum, measured in the same run with autocannon
// on story-detail GETs at the same concurrency. The server runs in a worker thread of this
// process (bench/tinypm-read-server.worker.mjs, importing ../dist/reference-server/index.js), so
// that its event loop is not the one the adapter and autocannon run on.
// Usage: npm run bench -- tinypm-read   (BENCH_STORIES, BENCH_DURATION to scale it down)
import autocannon from "autocannon";
import { createTinypmTracker } from "../dist/adapters/tinypm/index.js";
import { once } from "node:events";
import { Worker } from "node:worker_threads";

const STORIES = Number(process.env.BENCH_STORIES ?? 10_000);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const CONCURRENCY = 8;

function serverMax(url, token) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        headers: { "x-tinypm-token": token },
        connections: CONCURRENCY,
        duration: DURATION_S,
        pipelining: 1,
      },
      (error, result) => (error ? reject(error) : resolve(result.requests.average)),
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
  return {
    ...ready,
    async close() {
      worker.postMessage("close");
      await once(worker, "exit");
    },
  };
}

export async function run() {
  const server = await startServerWorker({
    generate: `stories=${STORIES},tasks=4,comments=1`,
    seed: 1,
  });
  const tracker = createTinypmTracker({
    baseUrl: server.url,
    token: server.token,
    projectId: 1,
    concurrency: CONCURRENCY,
  });
  try {
    const maxRate = await serverMax(`${server.url}/userstory/7`, server.token);
    const rssBefore = process.memoryUsage().rss;
    const stopRss = sampleRss();
    const started = performance.now();
    let stories = 0;
    let tasks = 0;
    for await (const item of tracker.list({})) {
      if (item.kind === "story") stories++;
      else tasks++;
    }
    const seconds = (performance.now() - started) / 1000;
    const peakRss = stopRss();
    const requests = tracker.apiCalls().reads;
    const rate = requests / seconds;
    return {
      name: "tinypm-read",
      figures: {
        stories,
        tasks,
        "wall time s": Number(seconds.toFixed(1)),
        "requests made": requests,
        "adapter req/s": Math.round(rate),
        "server max req/s (autocannon, story detail)": Math.round(maxRate),
        "ratio to server max %": Math.round((100 * rate) / maxRate),
        "peak RSS MiB": Math.round(peakRss / 2 ** 20),
        "RSS before read MiB": Math.round(rssBefore / 2 ** 20),
        concurrency: CONCURRENCY,
      },
      targets: { "ratio to server max %": ">= 70" },
    };
  } finally {
    await tracker.close();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await run());
}
