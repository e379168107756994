// Runs the CLI (`tinypm-sync serve …`, the arguments after this file) in this process, for
// bench/serve.bench.mjs, started with `node --expose-gc` and an IPC channel. Message "gc": a full
// garbage collection, then the process's memory (`process.memoryUsage()`) is sent back.
process.on("message", (msg) => {
  if (msg !== "gc") return;
  globalThis.gc?.();
  process.send?.({ memory: process.memoryUsage() });
});
await import("../dist/cli/main.js");
