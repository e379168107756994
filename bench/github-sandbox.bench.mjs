// GitHub sandbox throughput: requests per second and p99 latency at concurrency 16 for an issue
// list page (100 of 500 issues), the same page revalidated with If-None-Match (free 304s),
// a single issue, and issue creation (rate limits off), measured with autocannon against dist/.
// The sandbox runs in a worker thread so that autocannon does not share its event loop.
// Usage: npm run bench -- github-sandbox   (BENCH_DURATION seconds per scenario, default 5)
import { isMainThread, parentPort, Worker } from "node:worker_threads";
import autocannon from "autocannon";
import { startGithubSandbox } from "../dist/sandboxes/github/index.js";

const ISSUES = 500;

if (!isMainThread && parentPort) {
  const sandbox = await startGithubSandbox({ rateLimits: "off" });
  const headers = {
    authorization: `token ${sandbox.token}`,
    "user-agent": "bench",
    "content-type": "application/json",
  };
  for (let i = 1; i <= ISSUES; i++) {
    await fetch(`${sandbox.url}/repos/acme/widgets/issues`, {
      method: "POST",
      headers,
      body: JSON.stringify({ title: `Issue ${i}`, body: "x".repeat(200), labels: ["bench"] }),
    });
  }
  parentPort.postMessage({ url: sandbox.url, token: sandbox.token });
  parentPort.once("message", () => {
    void sandbox.close().then(() => process.exit(0));
  });
}

/** Starts the sandbox in a worker; resolves with its url, token and a stop function. */
function startInWorker() {
  const worker = new Worker(new URL(import.meta.url));
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

function measure(opts) {
  return new Promise((resolve, reject) => {
    autocannon(
      { connections: CONNECTIONS, duration: DURATION_S, pipelining: 1, ...opts },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

function figures(label, result, okStatus = "2xx") {
  const failed = (okStatus === "2xx" ? result.non2xx : 0) + result.errors + result.timeouts;
  return {
    [`${label} req/s`]: Math.round(result.requests.average),
    [`${label} p99 ms`]: result.latency.p99,
    [`${label} failed`]: failed,
  };
}

export async function run() {
  const sandbox = await startInWorker();
  const headers = { authorization: `token ${sandbox.token}`, "user-agent": "bench" };
  const listUrl = `${sandbox.url}/repos/acme/widgets/issues?per_page=100&state=all`;
  try {
    const first = await fetch(listUrl, { headers });
    const etag = first.headers.get("etag");
    await first.arrayBuffer();
    const list = await measure({ url: listUrl, headers });
    const revalidate = await measure({
      url: listUrl,
      headers: { ...headers, "if-none-match": etag },
    });
    const single = await measure({ url: `${sandbox.url}/repos/acme/widgets/issues/42`, headers });
    const create = await measure({
      url: `${sandbox.url}/repos/acme/widgets/issues`,
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ title: "Bench", labels: ["bench"], assignees: ["bob"] }),
    });
    return {
      name: "github-sandbox",
      figures: {
        ...figures("issue list page (100 issues)", list),
        ...figures("revalidation 304", revalidate, "304"),
        "revalidation 304 count": revalidate["3xx"] ?? 0,
        ...figures("single issue", single),
        ...figures("issue create", create),
        concurrency: CONNECTIONS,
        "duration per scenario s": DURATION_S,
      },
      targets: { "single issue req/s": ">= 2000 on 2 cores" },
    };
  } finally {
    await sandbox.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await run());
}
