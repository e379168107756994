import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { paintedLines, runUnderPty } from "./pty.js";
import { runCliProcess } from "./spawn.js";

const STORIES = 6;
const HOUR = 3_600_000;

let servers: Servers;
const sandboxes: GithubSandbox[] = [];
const tmp = tempDir();

beforeAll(async () => {
  servers = await startServers(`stories=${String(STORIES)},tasks=0,comments=0`);
});
afterAll(async () => {
  await Promise.allSettled([servers.close(), ...sandboxes.map((s) => s.close())]);
  tmp.cleanup();
});

/** A GitHub sandbox of its own (same token), whose real-time source a test can move forward. */
async function sandbox(rateLimits: string, timeScale = 1) {
  const clock = { offsetMs: 0 };
  const github = await startGithubSandbox({
    token: servers.github.token,
    rateLimits,
    timeScale,
    now: () => Date.now() + clock.offsetMs,
  });
  sandboxes.push(github);
  return { github, clock };
}

/** A config of the `gh` job against `github`, its own state file, with `limits` on GitHub. */
function config(name: string, github: GithubSandbox, limits: Record<string, number>): string {
  const file = writeConfig(tmp.dir, servers, { file: `${name}.json`, githubUrl: github.url });
  const parsed = JSON.parse(readFileSync(file, "utf8")) as {
    targets: { github: { limits?: unknown } };
    state: { path: string };
  };
  parsed.targets.github.limits = limits;
  parsed.state.path = `${tmp.dir}/${name}.db`;
  writeFileSync(file, JSON.stringify(parsed));
  return file;
}

/** Every issue of the sandbox's repository, open or closed. */
async function issues(github: GithubSandbox): Promise<{ title: string; body: string | null }[]> {
  const res = await fetch(
    `${github.url}/repos/${github.owner}/${github.repo}/issues?state=all&per_page=100`,
    { headers: { authorization: `token ${github.token}` } },
  );
  expect(res.status).toBe(200);
  return (await res.json()) as { title: string; body: string | null }[];
}

/** The time a `limit_wait` error says a rerun proceeds (its hint), epoch ms. */
function rerunAfter(stderr: string): number {
  const match = /error \[limit_wait\][^\n]*\n\s*hint: Run again after (\S+Z):/.exec(stderr);
  if (match === null) throw new Error(`no limit_wait error with a rerun time in:\n${stderr}`);
  return Date.parse(match[1] ?? "");
}

describe("a wait over the run's budget stops the run cleanly (exit 3, limit_wait)", () => {
  it(
    "GitHub refuses creates for an hour: exit 3 naming when a rerun proceeds; the rerun after the window completes, nothing duplicated",
    { timeout: 240_000 },
    async () => {
      const { github, clock } = await sandbox("creates=3/h");
      const file = config("refused", github, { writesPerMinute: 100000, writesPerHour: 1000000 });
      const first = await runCliProcess(["sync", "--config", file, "--job", "gh", "--json"], {
        env: servers.env,
      });
      expect(first).toMatchObject({ code: 3 });
      expect(first.stderr).toContain("the service's own rate limit");
      // GitHub's Retry-After was about an hour.
      expect(rerunAfter(first.stderr)).toBeGreaterThan(Date.now() + 30 * 60_000);
      // GitHub said so (Retry-After), the gate did not find out by itself.
      expect(github.stats().rateLimited).toBeGreaterThan(0);
      const before = await issues(github);
      expect(before.length).toBeLessThan(STORIES);

      // An hour later on GitHub's clock, each rerun resumes where the one before stopped (the
      // milestone and labels are content creations too: it takes more than one window).
      let rerun = first;
      const stops: number[] = [];
      for (let hours = 1; rerun.code === 3 && hours <= 6; hours++) {
        clock.offsetMs += HOUR + 60_000;
        rerun = await runCliProcess(["sync", "--config", file, "--job", "gh", "--json"], {
          env: servers.env,
        });
        if (rerun.code === 3) stops.push(rerunAfter(rerun.stderr) - Date.now());
      }
      expect(rerun).toMatchObject({ code: 0 });
      const after = await issues(github);
      expect(after).toHaveLength(STORIES);
      expect(new Set(after.map((i) => i.title)).size).toBe(STORIES);
      // Every issue the first run created is still the one the rerun kept.
      for (const issue of before) expect(after.map((i) => i.title)).toContain(issue.title);
    },
  );

  it(
    "the token's own hourly window is full: exit 3 before the next write, GitHub never refused",
    { timeout: 240_000 },
    async () => {
      const { github } = await sandbox("off");
      const file = config("own-window", github, { writesPerMinute: 80, writesPerHour: 2 });
      const r = await runCliProcess(["sync", "--config", file, "--job", "gh", "--json"], {
        env: servers.env,
      });
      expect(r).toMatchObject({ code: 3 });
      expect(r.stderr).toContain("is held back by its hourly limit");
      const resumeAt = rerunAfter(r.stderr);
      // About an hour after the first writes (which ran during this test).
      expect(resumeAt).toBeGreaterThan(Date.now() + 30 * 60_000);
      expect(github.stats().rateLimited).toBe(0);
      expect(github.stats().writes).toBeLessThanOrEqual(2);
    },
  );
});

describe("--wait-for-limits", () => {
  it(
    "a wait past the budget: without the flag exit 3 naming when to rerun; with it the run waits, repaints the wait, and finishes with each issue once",
    { timeout: 300_000 },
    async () => {
      // 3 creations a minute at 4× speed: GitHub asks for waits of up to 15 s in real time,
      // longer than the 3 s budget this config gives a run (limits.maxWaitMs).
      const { github } = await sandbox("creates=3/min", 4);
      const file = config("waits", github, {
        writesPerMinute: 100000,
        writesPerHour: 1000000,
        maxWaitMs: 3_000,
      });
      const stopped = await runCliProcess(["sync", "--config", file, "--job", "gh", "--json"], {
        env: servers.env,
      });
      expect(stopped).toMatchObject({ code: 3 });
      expect(stopped.stderr).toContain("the service's own rate limit");
      expect(stopped.stderr).toContain("longer than the run's wait budget of 3 s");
      const at = rerunAfter(stopped.stderr);
      expect(at).toBeGreaterThan(Date.now() - 60_000);
      expect(github.stats().rateLimited).toBeGreaterThan(0);
      const before = await issues(github);
      expect(before.length).toBeLessThan(STORIES);
      expect(new Set(before.map((i) => i.title)).size).toBe(before.length);

      // The same wait with the flag: the run waits it out, on the terminal's progress line.
      const refusedBefore = github.stats().rateLimited;
      const waited = await runUnderPty(
        ["sync", "--config", file, "--job", "gh", "--wait-for-limits"],
        servers.env,
      );
      expect(waited.code).toBe(0);
      expect(github.stats().rateLimited).toBeGreaterThan(refusedBefore);
      // The wait line is repainted while it lasts: its countdown moves.
      const waits = paintedLines(waited.output)
        .map((line) => /waiting for GitHub's [^·]+ · resumes [\d:]+ \(in (\d+) s\)/.exec(line))
        .filter((m) => m !== null)
        .map((m) => Number(m[1]));
      expect(waits.length).toBeGreaterThan(2);
      expect(new Set(waits).size).toBeGreaterThan(1);
      const after = await issues(github);
      expect(after).toHaveLength(STORIES);
      expect(new Set(after.map((i) => i.title)).size).toBe(STORIES);
      for (const issue of before) expect(after.map((i) => i.title)).toContain(issue.title);
    },
  );
});
