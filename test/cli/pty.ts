import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { CLI } from "./spawn.js";

/** util-linux `script`: runs a command under a real pseudo-terminal. */
const SCRIPT = "/usr/bin/script";

/** Whether the machine can run the CLI under a pseudo-terminal. */
export const PTY_AVAILABLE = existsSync(SCRIPT);

const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

/** Runs the built CLI under a real pseudo-terminal; stdout and stderr share it. */
export function runUnderPty(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, CLI, ...args].map(quote).join(" ");
  return new Promise((resolve, reject) => {
    execFile(
      SCRIPT,
      ["-qec", command, "/dev/null"],
      { env: { PATH: process.env.PATH ?? "", TERM: "xterm", ...env }, encoding: "utf8" },
      (error, stdout) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        if (error !== null && code === null) reject(new Error(`script failed: ${error.message}`));
        else resolve({ code, output: stdout });
      },
    );
  });
}

/** The states of the terminal's progress line, in the order they were painted. */
export function paintedLines(output: string): string[] {
  return output.split("\r\x1b[2K").slice(1);
}
