// Reference server throughput: requests per second and p99 latency at concurrency 16 for a story
// listing, a story detail and a task update (PUT), measured with autocannon against dist/.
// Usage: npm run bench -- reference-server
import autocannon from "autocannon";
import { startReferenceServer } from "../dist/reference-server/index.js";

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

function figures(label, result) {
  const failed = result.non2xx + result.errors + result.timeouts;
  return {
    [`${label} req/s`]: Math.round(result.requests.average),
    [`${label} p99 ms`]: result.latency.p99,
    [`${label} failed`]: failed,
  };
}

export async function run() {
  const server = await startReferenceServer({ generate: "medium", seed: 1 });
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
