import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built CLI to completion and collects its output. */
export function runCliProcess(
  args: readonly string[],
  opts: { env?: Record<string, string>; cwd?: string; input?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", ...opts.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? "");
  });
}

/** A running CLI process: its output so far, a way to signal it, and its end. */
export interface CliProcess {
  readonly pid: number | undefined;
  output(): { stdout: string; stderr: string };
  kill(signal: NodeJS.Signals): void;
  readonly done: Promise<CliResult>;
}

/** Starts the built CLI without waiting for it (for signals and long-running commands). */
export function startCliProcess(
  args: readonly string[],
  opts: { env?: Record<string, string> } = {},
): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code, stdout, stderr });
    });
  });
  return {
    pid: child.pid,
    output: () => ({ stdout, stderr }),
    kill: (signal) => {
      child.kill(signal);
    },
    done,
  };
}

/** Resolves once `test` holds for the process's output (polls; fails after `timeoutMs`). */
export async function waitForOutput(
  proc: CliProcess,
  test: (o: { stdout: string; stderr: string }) => boolean,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test(proc.output())) {
    if (Date.now() > deadline) {
      const o = proc.output();
      throw new Error(`timed out waiting for output; stdout: ${o.stdout}\nstderr: ${o.stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
