import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { CLI } from "./spawn.js";

// A reader that stops reading early (`tinypm-sync sandbox github | head -1` in a script, a pager
// closed with q) makes the next write fail with EPIPE. The command must not die of it with a stack
// trace: a sandbox keeps serving, a short command ends with its own exit code.

/** Starts the built CLI with its stdout pipe closed before it writes a byte. */
function startWithClosedStdout(args: readonly string[]): {
  child: ChildProcessByStdio<null, Readable, Readable>;
  stderr: () => string;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.destroy();
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exit = new Promise<number | null>((resolve) => child.on("close", resolve));
  return { child, stderr: () => stderr, exit };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr !== null ? addr.port : 0;
      srv.close(() => {
        resolve(port);
      });
    });
  });
}

async function answers(url: string): Promise<number | undefined> {
  try {
    return (await fetch(url)).status;
  } catch {
    return undefined;
  }
}

/** `sandbox github` with its stdout closed, on a port found free, once it answers or has exited. */
async function sandboxOnFreePort(): Promise<{
  p: ReturnType<typeof startWithClosedStdout>;
  url: string;
  state: { exited: boolean };
  addressInUse: () => boolean;
}> {
  const port = await freePort();
  const p = startWithClosedStdout(["sandbox", "github", "--port", String(port)]);
  const state = { exited: false };
  void p.exit.then(() => {
    state.exited = true;
  });
  const url = `http://127.0.0.1:${port}/rate_limit`;
  // Listening comes just before the banner is written; poll until it answers.
  const deadline = Date.now() + 30_000;
  while ((await answers(url)) === undefined) {
    if (state.exited || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { p, url, state, addressInUse: () => state.exited && p.stderr().includes("EADDRINUSE") };
}

describe("stdout closed by its reader", () => {
  it("ends `--help` with exit 0 and no EPIPE stack trace", async () => {
    const p = startWithClosedStdout(["--help"]);
    expect(await p.exit).toBe(0);
    expect(p.stderr()).not.toMatch(/EPIPE|Unhandled 'error'/);
  });

  it("keeps a sandbox serving after its banner could not be written", async () => {
    // The banner that names the port cannot be read, so the port is chosen here; should another
    // process take it before the sandbox binds it, the sandbox is started again on another.
    let sandbox = await sandboxOnFreePort();
    for (let attempt = 2; attempt <= 5 && sandbox.addressInUse(); attempt++) {
      sandbox = await sandboxOnFreePort();
    }
    const { p, url, state } = sandbox;
    // The failed banner write has had time to kill the process if it were going to.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect({ exited: state.exited, stderr: p.stderr() }).toEqual({ exited: false, stderr: "" });
    expect(await answers(url)).toBeDefined();
    p.child.kill("SIGTERM");
    expect(await p.exit).toBe(0);
    expect(p.stderr()).not.toMatch(/EPIPE|Unhandled 'error'/);
  }, 60_000);
});
