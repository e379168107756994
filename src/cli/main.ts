#!/usr/bin/env node
import { setMaxListeners } from "node:events";
import process from "node:process";
import { setFlagsFromString } from "node:v8";
import type { CliContext } from "./context.js";
import { heapFlag } from "./heap-policy.js";
import { createStopper } from "./stopper.js";
import { runCli } from "./run.js";

/** The process boundary: the one place that reads argv, wires signals and exits. */
async function main(): Promise<never> {
  // The heap grows by a fixed factor past its live set, not V8's up to four times (heap-policy.ts).
  const flag = heapFlag(process.execArgv, process.env.NODE_OPTIONS);
  if (flag !== undefined) setFlagsFromString(flag);
  const controller = new AbortController();
  // The run's signal is shared by every request in flight on every lane; the queue watches it with
  // one listener however many requests wait (src/core/abort-watch.ts). The other layers (the
  // stopper, the job runners) add a few each, so the bound leaves room; a real leak would still
  // pass it and be reported.
  setMaxListeners(100, controller.signal);
  const stopper = createStopper({
    controller,
    stderr: process.stderr,
    exit: (code) => process.exit(code),
  });
  process.on("SIGINT", stopper.onSignal);
  process.on("SIGTERM", stopper.onSignal);
  // A reader that closed early (`tinypm-sync sandbox github | head -2` in a script) wants no more
  // output, not a crash: the command goes on (a sandbox keeps serving, a run finishes its writes)
  // and what it would still print is dropped.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "EPIPE" && err.code !== "ERR_STREAM_DESTROYED") throw err;
    });
  }

  const ctx: CliContext = {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
    waitForStop: stopper.waitForStop,
    exitCode: 0,
    beforeForcedExit: stopper.beforeForcedExit,
  };
  const code = await runCli(process.argv.slice(2), ctx);
  // Let stdout drain before exiting, so piped reports are never cut short.
  await new Promise<void>((resolve) => {
    process.stdout.write("", () => {
      resolve();
    });
  });
  process.exit(code);
}

await main();
