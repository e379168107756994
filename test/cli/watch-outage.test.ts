import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { closedPort, startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { startCliProcess, waitForOutput } from "./spawn.js";

let servers: Servers;
const extra: ReferenceServer[] = [];
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=2,tasks=0,comments=0");
});
afterAll(async () => {
  await Promise.allSettled([servers.close(), ...extra.map((s) => s.close())]);
  tmp.cleanup();
});

const tinypm = async (port = 0): Promise<ReferenceServer> => {
  const start = () =>
    startReferenceServer({
      generate: "stories=2,tasks=0,comments=0",
      seed: 3,
      token: servers.env.TINYPM_TOKEN,
      port,
    });
  // Back on the port it had: while it was down, the port may have been lent for a moment to
  // another process's outgoing connection on this busy machine. Try again until it is free.
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const s = await start();
      extra.push(s);
      return s;
    } catch (error) {
      const inUse = (error as { code?: unknown }).code === "EADDRINUSE";
      if (!inUse || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
};

const count = (text: string, pattern: RegExp): number => text.match(pattern)?.length ?? 0;

describe("sync --watch through an outage", () => {
  it("backs off while tinyPM is down, says so once, says when it is back, and goes on syncing", async () => {
    const first = await tinypm();
    const config = writeConfig(tmp.dir, servers, { file: "outage.json", tinypmUrl: first.url });
    const watch = startCliProcess(
      ["sync", "--config", config, "--job", "gh", "--watch", "--interval", "1s", "--json"],
      { env: { ...servers.env, TINYPM_SYNC_OUTAGE_BACKOFF: "1s,2s" } },
    );
    const runs = (o: { stdout: string }): number => count(o.stdout, /"runId"/g);
    await waitForOutput(watch, (o) => runs(o) >= 1, 60_000);
    await first.close();
    await waitForOutput(watch, (o) => o.stderr.includes("tinyPM is down since"), 90_000);
    // The watcher keeps trying (with backoff) instead of exiting.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(watch.output().stderr).not.toContain("error [");
    await tinypm(first.port);
    await waitForOutput(watch, (o) => o.stderr.includes("tinyPM is back after"), 90_000);
    const before = runs(watch.output());
    await waitForOutput(watch, (o) => runs(o) > before, 60_000);
    const sent = Date.now();
    watch.kill("SIGINT");
    const r = await watch.done;
    expect(r.code).toBe(0);
    expect(Date.now() - sent).toBeLessThan(5000);
    // One line when it went down (not one per try), one when it came back.
    expect(count(r.stderr, /tinyPM is down since/g)).toBe(1);
    expect(count(r.stderr, /tinyPM is back after/g)).toBe(1);
    expect(r.stderr).toMatch(
      /tinyPM is down since \d\d:\d\d:\d\d: \[remote_unavailable\][^"]*; next try \d\d:\d\d:\d\d \(in \d+ s\)/,
    );
  });

  it("SIGINT during the backoff exits at once", async () => {
    const port = await closedPort();
    const config = writeConfig(tmp.dir, servers, {
      file: "down.json",
      tinypmUrl: `http://127.0.0.1:${port}/tinypm/api`,
    });
    const watch = startCliProcess(
      ["sync", "--config", config, "--job", "gh", "--watch", "--interval", "1s"],
      { env: { ...servers.env, TINYPM_SYNC_OUTAGE_BACKOFF: "10m,10m" } },
    );
    await waitForOutput(watch, (o) => o.stderr.includes("tinyPM is down since"), 90_000);
    expect(watch.output().stderr).toMatch(/next try \d\d:\d\d \(in \d+ min/);
    const sent = Date.now();
    watch.kill("SIGINT");
    const r = await watch.done;
    expect(r.code).toBe(0);
    expect(Date.now() - sent).toBeLessThan(5000);
    expect(r.stderr).toContain("stopped between runs");
  });
});
