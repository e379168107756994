import type { Writable } from "node:stream";
import { ExitCode, InterruptedError } from "../core/errors.js";
import { renderError } from "./render-error.js";

/**
 * How long a command may take to wind down after SIGINT/SIGTERM before the process exits on its
 * own: the run must end within a second of the signal, whatever it is waiting for.
 */
export const STOP_GRACE_MS = 700;

export interface Stopper {
  /** The SIGINT/SIGTERM handler. */
  readonly onSignal: (signal: NodeJS.Signals) => void;
  /** Resolves with the signal's name once one arrives. */
  readonly waitForStop: () => Promise<string>;
  /** Registers last words for a forced exit (see `CliContext.beforeForcedExit`). */
  readonly beforeForcedExit: (fn: () => void) => () => void;
}

/**
 * Signal handling of the process: the first signal aborts the run's signal (requests, waits and
 * the engine stop, the run is journalled as interrupted, the command returns and the process
 * exits 130). If the command has not returned `graceMs` later — or a second signal comes — the
 * registered last words run (each journals its run as interrupted and releases its state) and
 * the process exits 130 at once. One Ctrl-C is always enough.
 */
export function createStopper(opts: {
  controller: AbortController;
  stderr: Writable;
  exit: (code: number) => void;
  graceMs?: number;
}): Stopper {
  const lastWords = new Set<() => void>();
  const stops: ((signal: string) => void)[] = [];
  let received: string | undefined;
  let forced = false;
  const force = (): void => {
    if (forced) return;
    forced = true;
    for (const fn of [...lastWords]) {
      try {
        fn();
      } catch {
        // Exiting anyway: a run left open is closed as interrupted by the next run or `status`.
      }
    }
    const error = new InterruptedError(
      `Stopped by ${received ?? "a signal"}; the run is journalled as interrupted and the state is consistent.`,
      {
        hint: "Run the same command again: it resumes where this run stopped, without duplicates.",
      },
    );
    opts.stderr.write(`${renderError(error)}\n`);
    opts.exit(ExitCode.interrupted);
  };
  return {
    onSignal: (signal) => {
      if (opts.controller.signal.aborted) {
        force(); // a second signal: no need to wait out the grace period
        return;
      }
      received = signal;
      opts.controller.abort(new Error(`received ${signal}`));
      for (const stop of stops.splice(0)) stop(signal);
      setTimeout(force, opts.graceMs ?? STOP_GRACE_MS);
    },
    waitForStop: () =>
      new Promise<string>((resolve) => {
        if (received !== undefined) resolve(received);
        else stops.push(resolve);
      }),
    beforeForcedExit: (fn) => {
      lastWords.add(fn);
      return () => {
        lastWords.delete(fn);
      };
    },
  };
}
