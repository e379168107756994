import { spawn, type ChildProcess } from "node:child_process";
import { CLI, ensureBuilt } from "../support/private-build.js";

export { CLI, ensureBuilt };

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Starts the built CLI; the caller may kill it. */
export function spawnCli(
  args: readonly string[],
  opts: { env?: Record<string, string>; cwd?: string },
): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Runs the built CLI to completion and collects its output. */
export function runCli(
  args: readonly string[],
  opts: { env?: Record<string, string>; cwd?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, opts);
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}
