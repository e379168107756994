// Reference server throughput: requests per second and p99 latency at concurrency 16 for a story
// listing, a story detail and a task update (PUT), measured with autocannon against dist/.
// The server runs in a worker thread so that autocannon does not share its event loop.
// Usage: npm run bench -- reference-server
import { Worker } from "node:worker_threads";
import autocannon from "autocannon";

const SERVER = new URL("../dist/reference-server/index.js", import.meta.url).href;

// The worker's code: starts the server from dist/, reports its url and token, stops on a message.
const WORKER = `
const { parentPort } = await import("node:worker_threads");
const { startReferenceServer } = await import(${JSON.stringify(SERVER)});
const server = await startReferenceServer({ generate: "medium", seed: 1 });
parentPort.postMessage({ url: server.url, token: server.token });
parentPort.once("message", () => void server.close().then(() => parentPort.close()));
`;

/** Starts the server in a worker thread; resolves with its url, token and a close function. */
function startInWorker() {
  const worker = new Worker(WORKER, { eval: true, type: "module" });
  return new Promise((resolve, reject) => {
    worker.once("error", reject);
    worker.once("message", ({ url, token }) => {
      resolve({
        url,
        token,
        close: () =>
          new Promise((done) => {
            worker.once("exit", () => done());
            worker.postMessage("stop");
          }),
      });
    });
  });
}

const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = 16;

function cannon(opts, duration) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, duration, pipelining: 1, ...opts }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

/** A short unmeasured warm-up (JIT, caches), then the measured run. */
async function measure(opts) {
  await cannon(opts, 2);
  return cannon(opts, DURATION_S);
}

function figures(label, result) {
  const failed = result.non2xx + result.errors + result.timeouts;
  return {
    [`${label} req/s`]: Math.round(result.requests.average),
    [`${label} p99 ms`]: result.latency.p99,
    [`${label} failed`]: failed,
  };
}

export async function run() {
  const server = await startInWorker();
  const headers = { "x-tinypm-token": server.token };
  try {
    const listing = await measure({ url: `${server.url}/project/1/userstories`, headers });
    const detail = await measure({ url: `${server.url}/userstory/7`, headers });
    const body =
      "<task><name>Bench task</name><description>Updated by the benchmark</description>" +
      "<status><id>2</id></status><estimatedEffort>2.0</estimatedEffort>" +
      "<assignedUsers><user><id>1</id></user><user><id>2</id></user></assignedUsers></task>";
    const update = await measure({
      url: `${server.url}/task/7`,
      method: "PUT",
      headers: { ...headers, "content-type": "application/xml" },
      body,
    });
    return {
      name: "reference-server",
      figures: {
        ...figures("story listing (60 stories)", listing),
        ...figures("story detail", detail),
        ...figures("task update", update),
        concurrency: CONNECTIONS,
        "duration per scenario s": DURATION_S,
        "warm-up per scenario s": 2,
      },
      targets: { "story detail req/s": ">= 3000 on 2 cores" },
    };
  } finally {
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await run());
}
