import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { StatusJson } from "../../src/cli/json-output.js";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess, startCliProcess, waitForOutput, type CliProcess } from "./spawn.js";

let servers: Servers;
const sandboxes: GithubSandbox[] = [];
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=6,tasks=0,comments=0");
});
afterAll(async () => {
  await Promise.allSettled([servers.close(), ...sandboxes.map((s) => s.close())]);
  tmp.cleanup();
});

/**
 * A config whose GitHub target (a fresh, empty repository of its own) allows `writesPerHour`
 * content writes an hour.
 */
async function hourlyLimitedConfig(name: string, writesPerHour: number): Promise<string> {
  const github = await startGithubSandbox({ token: servers.github.token });
  sandboxes.push(github);
  const file = writeConfig(tmp.dir, servers, { file: `${name}.json`, githubUrl: github.url });
  const config = JSON.parse(readFileSync(file, "utf8")) as {
    targets: { github: { limits?: unknown } };
    state: { path: string };
  };
  config.targets.github.limits = { writesPerMinute: 80, writesPerHour };
  config.state.path = `${tmp.dir}/${name}.db`;
  writeFileSync(file, JSON.stringify(config));
  return file;
}

/** Signals `proc` and measures how long it takes to exit. */
async function stopAndTime(
  proc: CliProcess,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; stderr: string; afterSignalMs: number }> {
  const sent = Date.now();
  proc.kill(signal);
  const r = await proc.done;
  return { code: r.code, stderr: r.stderr, afterSignalMs: Date.now() - sent };
}

/** Starts a migration that makes two writes, then meets the full hourly window and waits. */
async function startInHourlyWait(config: string): Promise<CliProcess> {
  const run = startCliProcess(
    ["migrate", "--config", config, "--job", "gh", "--log-level", "debug", "--wait-for-limits"],
    { env: servers.env },
  );
  const writes = (o: { stderr: string }): number => o.stderr.split('"method":"POST"').length - 1;
  // Until the run says it waits (a fixed pause could end before the wait began on a loaded
  // machine, and the signal then met another moment of the run than the one under test).
  // The third write is booked (and the wait said) as soon as the second is sent, before the
  // second's answer is logged: wait for both lines.
  await waitForOutput(
    run,
    (o) => o.stderr.includes("waiting for GitHub's hourly limit") && writes(o) >= 2,
  );
  // Still two: the third write waits for the hourly window (about an hour).
  expect(writes(run.output())).toBe(2);
  expect(run.output().stderr).not.toContain("run finished");
  return run;
}

async function lastRun(config: string, job: string) {
  const status = await runCliProcess(["status", "--config", config, "--json"], {
    env: servers.env,
  });
  expect(status.code).toBe(0);
  const parsed = StatusJson.parse(JSON.parse(status.stdout));
  return parsed.jobs.find((j) => j.job === job);
}

describe("a signal ends a run within a second, at any moment", () => {
  it("SIGINT during an hour-long rate-limit wait: exit 130 at once, journalled as interrupted", async () => {
    const config = await hourlyLimitedConfig("hourly", 2);
    const run = await startInHourlyWait(config);
    const r = await stopAndTime(run, "SIGINT");
    expect(r.code).toBe(130);
    // Generous for a loaded machine; the wait itself would have been about an hour.
    expect(r.afterSignalMs).toBeLessThan(5000);
    expect(r.stderr).toContain("error [interrupted]");
    const job = await lastRun(config, "gh");
    expect(job?.running).toBeNull();
    expect(job?.lastRuns[0]).toMatchObject({
      mode: "migrate",
      outcome: "interrupted",
      exitCode: 130,
    });
  });

  it("a run killed outright (SIGKILL) during the wait is reported as interrupted, never running", async () => {
    const config = await hourlyLimitedConfig("killed", 2);
    const run = await startInHourlyWait(config);
    const r = await stopAndTime(run, "SIGKILL");
    expect(r.code).toBeNull();
    const job = await lastRun(config, "gh");
    expect(job?.running).toBeNull();
    expect(job?.lastRuns[0]).toMatchObject({ mode: "migrate", outcome: "interrupted" });
    const text = await runCliProcess(["status", "--config", config], { env: servers.env });
    expect(text.stdout).toContain("running now: no");
    expect(text.stdout).toContain("last run: migrate interrupted: its process is gone");
  });

  it("SIGTERM during a request that never gets an answer: exit 130 at once, journalled as interrupted", async () => {
    // A tinyPM that accepts connections and never answers: the run hangs in its first request.
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const address = silent.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    try {
      const config = writeConfig(tmp.dir, servers, {
        file: "silent.json",
        tinypmUrl: `http://127.0.0.1:${port}/api`,
      });
      const run = startCliProcess(["sync", "--config", config, "--job", "gh"], {
        env: servers.env,
      });
      await waitForOutput(run, () => sockets.size > 0);
      const r = await stopAndTime(run, "SIGTERM");
      expect(r.code).toBe(130);
      expect(r.afterSignalMs).toBeLessThan(5000);
      expect(r.stderr).toContain("error [interrupted]");
      const job = await lastRun(config, "gh");
      expect(job?.running).toBeNull();
      expect(job?.lastRuns[0]).toMatchObject({
        mode: "sync",
        outcome: "interrupted",
        exitCode: 130,
      });
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => {
        silent.close(() => {
          resolve();
        });
      });
    }
  });
});
