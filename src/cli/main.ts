#!/usr/bin/env node
import { setMaxListeners } from "node:events";
import process from "node:process";
import type { CliContext } from "./context.js";
import { runCli } from "./run.js";

/** The process boundary: the one place that reads argv, wires signals and exits. */
async function main(): Promise<never> {
  const controller = new AbortController();
  // The run's signal is shared by every request in flight on every lane (tinyPM, the target, the
  // user and profile reads), so more than Node's default of 10 listeners is normal; a real leak
  // would still pass this bound and be reported.
  setMaxListeners(100, controller.signal);
  const stops: ((signal: string) => void)[] = [];
  const onSignal = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted) process.exit(130); // a second Ctrl-C: stop now
    controller.abort(new Error(`received ${signal}`));
    for (const stop of stops.splice(0)) stop(signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const ctx: CliContext = {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
    waitForStop: () =>
      new Promise<string>((resolve) => {
        if (controller.signal.aborted) {
          resolve("SIGINT");
        } else {
          stops.push(resolve);
        }
      }),
    exitCode: 0,
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
