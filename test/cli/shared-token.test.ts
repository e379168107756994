import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { startServers, tempDir, writeConfig, type Servers } from "./fixtures.js";
import { runCliProcess } from "./spawn.js";

/**
 * The numbers are chosen so that the sharing is what keeps the limit. Each job alone writes no
 * more than the token's minute allows (a milestone or two, 4 issues and a few updates: its own
 * gate never holds it back by the window), but the two jobs together create 11 pieces of content
 * within a minute, more than GitHub's 8. With one gate per job, the second job's gate starts
 * with an empty window while the first job's creations still fill GitHub's: GitHub refuses
 * (checked by keying the gate registry per job: the test then fails on `rateLimited`). With one
 * gate per token, the second job's writes wait for the first job's window to clear.
 */
const STORIES = 4;
/** GitHub's content creations a minute, in the sandbox and in the config alike. */
const CREATES_PER_MINUTE = 8;

let servers: Servers;
let github: GithubSandbox;
const tmp = tempDir();

beforeAll(async () => {
  // No closed stories: no closing writes, so that one job's writes fit in one minute's window.
  servers = await startServers(`stories=${String(STORIES)},tasks=0,comments=0,closed=0`);
  github = await startGithubSandbox({
    token: servers.github.token,
    rateLimits: `creates=${String(CREATES_PER_MINUTE)}/min,creates=1000/h`,
  });
});
afterAll(async () => {
  await Promise.allSettled([servers.close(), github.close()]);
  tmp.cleanup();
});

/**
 * Two GitHub jobs (`one`, `two`) of one config, each syncing the tinyPM project into the same
 * repository with the same token; the config gives the token the sandbox's per-minute limit.
 */
function twoJobConfig(): string {
  const file = writeConfig(tmp.dir, servers, { file: "two-jobs.json", githubUrl: github.url });
  const config = JSON.parse(readFileSync(file, "utf8")) as {
    targets: { github: { limits?: unknown } };
    jobs: { name: string; target: string }[];
  };
  config.targets.github.limits = { writesPerMinute: CREATES_PER_MINUTE, writesPerHour: 1000 };
  const gh = config.jobs.find((j) => j.target === "github");
  if (gh === undefined) throw new Error("the fixture config has no GitHub job");
  config.jobs = [
    { ...gh, name: "one" },
    { ...gh, name: "two" },
  ];
  writeFileSync(file, JSON.stringify(config));
  return file;
}

/** Content-creating requests GitHub answered (what its secondary limit counts). */
function creations(stats: ReturnType<GithubSandbox["stats"]>): number {
  return Object.entries(stats.byRoute)
    .filter(([route]) =>
      /^(POST|PUT) .*\/(issues|comments|labels|milestones|sub_issues)$/.test(route),
    )
    .reduce((sum, [, n]) => sum + n, 0);
}

describe("two jobs of one config sharing a token share its budget", () => {
  it(
    "sync of both jobs in one process stays within the token's per-minute creation limit: no refusal, every item once per job",
    { timeout: 300_000 },
    async () => {
      const file = twoJobConfig();
      const r = await runCliProcess(["sync", "--config", file, "--json"], { env: servers.env });
      expect(r).toMatchObject({ code: 0 });

      const stats = github.stats();
      // Together the jobs created more than one window allows, so the limit was really met…
      expect(creations(stats)).toBeGreaterThan(CREATES_PER_MINUTE);
      // …and the shared gate kept it: GitHub never refused a request (primary or secondary).
      expect(stats.rateLimited).toBe(0);
      expect(stats.byStatus["403"] ?? 0).toBe(0);
      expect(stats.byStatus["429"] ?? 0).toBe(0);

      const res = await fetch(
        `${github.url}/repos/${github.owner}/${github.repo}/issues?state=all&per_page=100`,
        { headers: { authorization: `token ${github.token}` } },
      );
      const issues = (await res.json()) as { title: string }[];
      // Each job made its own copy of every story, once.
      expect(issues).toHaveLength(2 * STORIES);
      const perTitle = new Map<string, number>();
      for (const i of issues) perTitle.set(i.title, (perTitle.get(i.title) ?? 0) + 1);
      expect(perTitle.size).toBe(STORIES);
      for (const n of perTitle.values()) expect(n).toBe(2);

      const status = await runCliProcess(["status", "--config", file, "--json"], {
        env: servers.env,
      });
      const parsed = JSON.parse(status.stdout) as { jobs: { job: string; links: number }[] };
      expect(parsed.jobs.map((j) => [j.job, j.links])).toEqual([
        ["one", STORIES],
        ["two", STORIES],
      ]);
    },
  );
});
