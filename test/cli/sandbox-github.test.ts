import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, runCliProcess } from "./spawn.js";

const children: ChildProcessWithoutNullStreams[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Starts `tinypm-sync sandbox github …` and resolves with its first stdout lines. */
async function startSandbox(
  args: readonly string[],
  count: number,
): Promise<{ child: ChildProcessWithoutNullStreams; lines: string[] }> {
  const child = spawn(process.execPath, [CLI, "sandbox", "github", ...args], {
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" },
  });
  children.push(child);
  const lines: string[] = [];
  const reader = createInterface({ input: child.stdout });
  await new Promise<void>((resolve, reject) => {
    reader.on("line", (line) => {
      lines.push(line);
      if (lines.length === count) resolve();
    });
    child.on("exit", (code) => {
      reject(new Error(`sandbox exited early with ${String(code)}`));
    });
  });
  return { child, lines };
}

const exitCode = (child: ChildProcessWithoutNullStreams): Promise<number | null> =>
  new Promise((resolve) =>
    child.on("exit", (code) => {
      resolve(code);
    }),
  );

describe("tinypm-sync sandbox github", () => {
  it("prints its URL and token, serves authenticated requests and exits 0 on SIGTERM", async () => {
    const { child, lines } = await startSandbox(["--token", "ghp_cli_test_token"], 2);
    expect(lines[0]).toMatch(/^GitHub sandbox listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines[1]).toBe("token: ghp_cli_test_token");
    const url = lines[0]!.replace("GitHub sandbox listening on ", "");
    const res = await fetch(`${url}/user`, {
      headers: { authorization: "token ghp_cli_test_token", "user-agent": "cli-test" },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { login: string }).login).toBe("alice");
    expect(res.headers.get("x-ratelimit-limit")).toBe("5000");
    const exited = exitCode(child);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("generates a ghp_ token when none is given", async () => {
    const { child, lines } = await startSandbox(["--rate-limits", "off"], 2);
    expect(lines[1]).toMatch(/^token: ghp_[A-Za-z0-9]{36}$/);
    const exited = exitCode(child);
    child.kill("SIGINT");
    expect(await exited).toBe(0);
  });

  it("rejects an unknown sandbox name, naming the valid ones", async () => {
    const r = await runCliProcess(["sandbox", "gitlab"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error \[usage\]: unknown sandbox "gitlab"\. Valid sandboxes: github/);
  });

  it("rejects a bad rate-limit spec with exit 2", async () => {
    const r = await runCliProcess(["sandbox", "github", "--rate-limits", "creates=lots"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--rate-limits");
  });
});
