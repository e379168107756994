// Runs the reference server in a worker thread (same process, its own event loop), for
// bench/tinypm-read.bench.mjs: the server and the adapter under test then do not share one loop.
import { parentPort, workerData } from "node:worker_threads";
import { startReferenceServer } from "../dist/reference-server/index.js";

const server = await startReferenceServer(workerData);
parentPort.postMessage({ url: server.url, token: server.token });
parentPort.on("message", async (msg) => {
  if (msg === "stats") parentPort.postMessage({ stats: server.stats() });
  if (msg === "close") {
    await server.close();
    parentPort.close();
  }
});
