import type { Writable } from "node:stream";

/** What every command gets from the process boundary: streams, environment, a stop signal. */
export interface CliContext {
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  /** The process environment (secrets are resolved from it by `config/load.ts` only). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Aborted on SIGINT/SIGTERM. */
  readonly signal: AbortSignal;
  /** Resolves with the signal's name when the process is asked to stop. */
  waitForStop(): Promise<string>;
  /** The exit code the process ends with once the command returns. */
  exitCode: number;
  /**
   * Registers what must happen if the process exits on a signal before the command returns
   * (journal the run as interrupted, release the state); returns the unregistering function.
   * Absent where no process exit can cut a command short (tests that call `runCli`).
   */
  beforeForcedExit?: (fn: () => void) => () => void;
}

/** Writes a line to a stream. */
export function writeLine(stream: Writable, line: string): void {
  stream.write(`${line}\n`);
}
