import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { paintedLines, PTY_AVAILABLE, runUnderPty } from "./pty.js";

/**
 * Issue 32: read phases looked frozen (`reading tinyPM · 0 items · 0.0/s` for 30 s). With
 * latency on every request, the terminal's line must show what each read phase counts —
 * requests made, stories read of how many, items — and those counts must move while it reads.
 */
let servers: Servers;
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers("stories=24,tasks=1,comments=0");
  servers.tinypm.setFaults("latency=60");
  servers.github.setFaults("latency=60");
});
afterAll(async () => {
  await servers.close();
  tmp.cleanup();
});

/** The painted lines of one phase, and the numbers a pattern picks out of them, in order. */
function counts(painted: readonly string[], phase: string, pattern: RegExp): number[] {
  return painted
    .filter((p) => p.startsWith(phase))
    .flatMap((p) => {
      const m = pattern.exec(p);
      return m === null ? [] : [Number(m[1])];
    });
}

describe.runIf(PTY_AVAILABLE)("progress while reading, on a terminal", () => {
  it("counts requests, stories read of how many, and items on a slow tinyPM and GitHub", async () => {
    const config = writeConfig(tmp.dir, servers, { file: "reading.json" });
    // A migration, then the same again: it reads the 48 issues the first one made.
    const first = await runUnderPty(["migrate", "--config", config, "--job", "gh"], servers.env);
    expect(first.code).toBe(0);
    const painted = paintedLines(first.output);
    // tinyPM: requests grow, and stories are counted against the listing's 24.
    const tinypmRequests = counts(painted, "reading tinyPM", / (\d+) requests? /);
    expect(new Set(tinypmRequests).size).toBeGreaterThan(3);
    expect(tinypmRequests.at(-1)).toBeGreaterThan(tinypmRequests[0] ?? 0);
    const stories = counts(painted, "reading tinyPM", / (\d+)\/24 stories read/);
    expect(new Set(stories).size).toBeGreaterThan(2);
    expect(Math.max(...stories)).toBe(24);
    // Its time moves while nothing else does.
    const seconds = counts(painted, "reading tinyPM", /^reading tinyPM · (\d+) s/);
    expect(new Set(seconds).size).toBeGreaterThan(1);
    expect(painted.some((p) => /^reading tinyPM · .*0\.0\/s/.test(p))).toBe(false);

    const sync = await runUnderPty(["migrate", "--config", config, "--job", "gh"], servers.env);
    expect(sync.code).toBe(0);
    const syncPainted = paintedLines(sync.output);
    const githubItems = counts(syncPainted, "reading GitHub", / (\d+) items? read/);
    expect(new Set(githubItems).size).toBeGreaterThan(1);
    expect(Math.max(...githubItems)).toBeGreaterThan(24);
    const githubRequests = counts(syncPainted, "reading GitHub", / (\d+) requests? /);
    expect(Math.max(...githubRequests)).toBeGreaterThan(0);
  });
});
