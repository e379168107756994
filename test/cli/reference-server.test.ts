import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { CLI, runCliProcess } from "./spawn.js";

/** Starts the server command and resolves with its first two stdout lines and the child. */
function startServer(args: readonly string[]) {
  const child = spawn(process.execPath, [CLI, "reference-server", ...args], {
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const ready = new Promise<string[]>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.on("line", (line) => {
      lines.push(line);
      if (lines.length === 2) resolve(lines);
    });
    child.on("close", () => {
      reject(new Error(`server exited early: ${lines.join("\n")}`));
    });
  });
  return { child, ready, exited };
}

describe("tinypm-sync reference-server", () => {
  it("prints its URL and token, serves the API, and exits 0 on SIGTERM", async () => {
    const server = startServer(["--port", "0", "--generate", "small", "--seed", "7"]);
    const [first, second] = await server.ready;
    expect(first).toMatch(
      /^tinyPM reference server listening on http:\/\/127\.0\.0\.1:\d+\/tinypm\/api$/,
    );
    expect(second).toMatch(/^token: [0-9a-f]{32}$/);
    const url = first!.replace("tinyPM reference server listening on ", "");
    const token = second!.slice("token: ".length);
    const res = await fetch(`${url}/users`, { headers: { "X-tinyPM-token": token } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("<name>Alice Smith</name>");
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  });

  it("uses the token given with --token and refuses others", async () => {
    const server = startServer(["--token", "s3cret", "--api-version", "2.5"]);
    const [first, second] = await server.ready;
    expect(second).toBe("token: s3cret");
    const url = first!.replace("tinyPM reference server listening on ", "");
    expect((await fetch(`${url}/projects?token=wrong`)).status).toBe(401);
    expect((await fetch(`${url}/projects?token=s3cret`)).status).toBe(200);
    server.child.kill("SIGINT");
    expect(await server.exited).toBe(0);
  });

  it("rejects a bad --generate with exit 2 naming the presets", async () => {
    const r = await runCliProcess(["reference-server", "--generate", "huge"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error \[usage\]: --generate: .*empty, small, medium, large/);
  });

  it("rejects a bad --faults with exit 2 naming the valid kinds", async () => {
    const r = await runCliProcess(["reference-server", "--faults", "explode"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error \[usage\]: --faults: .*valid kinds: latency/);
  });

  it("rejects a missing --dataset file with exit 2", async () => {
    const r = await runCliProcess(["reference-server", "--dataset", "/nonexistent/data.json"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error \[usage\]: --dataset: cannot read dataset/);
  });
});
