// Runs the reference server in a worker thread (same process, its own event loop), for
// bench/tinypm-read.bench.mjs: the server and the adapter under test then do not share one loop.
// Messages: "elu" answers the thread's event-loop utilisation since the previous "elu"; "close".
import { performance } from "node:perf_hooks";
import { parentPort, workerData } from "node:worker_threads";
import { startReferenceServer } from "../dist/reference-server/index.js";

const server = await startReferenceServer(workerData);
let mark = performance.eventLoopUtilization();
parentPort.postMessage({ url: server.url, token: server.token });
parentPort.on("message", async (msg) => {
  if (msg === "stats") parentPort.postMessage({ stats: server.stats() });
  if (msg === "elu") {
    const elu = performance.eventLoopUtilization(mark).utilization;
    mark = performance.eventLoopUtilization();
    parentPort.postMessage({ elu });
  }
  if (msg === "close") {
    await server.close();
    parentPort.close();
  }
});
