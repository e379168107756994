import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTarget } from "../../src/adapters/registry.js";
import type { WorkItem } from "../../src/core/model.js";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { openSqliteStore } from "../../src/state/sqlite-store.js";
import { CLI, ensureBuilt } from "../support/private-build.js";

/**
 * Crash safety: the built CLI's `migrate` killed with SIGKILL at seeded random moments (after a
 * random number of writes), then run
 * again to completion, gives exactly what an uninterrupted migration gives: no duplicate, no
 * missing item, every field equal. The servers live in this process and outlive the children.
 */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ROUNDS = 20;
/** Rounds running at once (each spawns one CLI at a time). */
const CONCURRENT = 2;

/** A small deterministic PRNG (mulberry32), so that the kill moments are reproducible. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs each `fn` given when fewer than `n` run, else once one of them ended. */
function limiter(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let free = n;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next === undefined) free++;
      else next();
    }
  };
}

interface Child {
  readonly code: number | null;
  readonly ms: number;
  readonly stderr: string;
}

/**
 * Runs `migrate` in a child. With `killAt`, kills it with SIGKILL as soon as the sandbox has
 * taken that many writes (a random moment of the migration, whatever the machine's speed).
 */
function migrate(
  config: string,
  env: Record<string, string>,
  killAt?: { writes: number; github: GithubSandbox },
): Promise<Child> {
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [CLI, "migrate", "--config", config, "--job", "gh", "--log-level", "error"],
    { env: { ...process.env, ...env, NO_COLOR: "1" }, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const timer =
    killAt === undefined
      ? undefined
      : setInterval(() => {
          if (killAt.github.stats().writes >= killAt.writes) child.kill("SIGKILL");
        }, 1);
  return new Promise((resolve) => {
    child.on("exit", (code) => {
      if (timer !== undefined) clearInterval(timer);
      resolve({ code, ms: Date.now() - started, stderr });
    });
  });
}

function writeConfig(dir: string, tinypm: ReferenceServer, github: GithubSandbox): string {
  const file = join(dir, "config.json");
  const config = {
    tinypm: { baseUrl: tinypm.url, tokenEnv: "TINYPM_TOKEN" },
    targets: {
      github: {
        type: "github",
        baseUrl: github.url,
        owner: github.owner,
        repo: github.repo,
        tokenEnv: "GITHUB_TOKEN",
        limits: { writesPerMinute: 100000, writesPerHour: 1000000 },
      },
    },
    jobs: [
      {
        name: "gh",
        tinypmProject: 1,
        target: "github",
        mapping: join(ROOT, "mappings/github.yaml"),
      },
    ],
    state: { path: join(dir, "state.db") },
  };
  writeFileSync(file, JSON.stringify(config));
  return file;
}

/** What a migration produced on GitHub, by origin, ids aside. */
async function contents(github: GithubSandbox): Promise<string[]> {
  const tracker = createTarget({
    type: "github",
    tokenEnv: "GITHUB_TOKEN",
    importApi: false,
    baseUrl: github.url,
    owner: github.owner,
    repo: github.repo,
    token: github.token,
  });
  const items: WorkItem[] = [];
  try {
    for await (const item of tracker.list({})) items.push(item);
  } finally {
    await tracker.close();
  }
  const origin = new Map(items.map((i) => [i.id, `${i.kind}:${i.marker?.originId ?? "?"}`]));
  return items
    .map((i) =>
      JSON.stringify({
        origin: origin.get(i.id),
        parent: i.parentId === undefined ? undefined : origin.get(i.parentId),
        title: i.title,
        description: i.description,
        status: i.status,
        labels: [...i.labels].sort(),
        assignees: i.assignees.map((a) => a.login).sort(),
        iteration: i.iteration?.name,
        comments: i.comments.map((c) => c.body),
        metadata: i.metadata,
      }),
    )
    .sort();
}

describe("crash safety of migrate (SIGKILL at random moments)", () => {
  let tinypm: ReferenceServer;
  let dir: string;
  let expected: string[];
  let fullWrites: number;
  const env = (github: GithubSandbox): Record<string, string> => ({
    TINYPM_TOKEN: tinypm.token,
    GITHUB_TOKEN: github.token,
  });

  beforeAll(async () => {
    ensureBuilt();
    tinypm = await startReferenceServer({ generate: "stories=8,tasks=2,comments=2", seed: 5 });
    dir = mkdtempSync(join(tmpdir(), "tps-crash-"));
    const github = await startGithubSandbox({ rateLimits: "off" });
    try {
      const run = await migrate(writeConfig(join(dir), tinypm, github), env(github));
      if (run.code !== 0) throw new Error(`reference migration failed: ${run.stderr}`);
      fullWrites = github.stats().writes;
      expected = await contents(github);
    } finally {
      await github.close();
    }
  }, 120_000);
  afterAll(async () => {
    await tinypm.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the reference migration copied every story, task and comment", () => {
    expect(expected).toHaveLength(8 + 16);
    expect(new Set(expected).size).toBe(expected.length);
  });

  // One test a round, each with its own timeout: twenty rounds of two CLI runs in one test
  // timed out on a loaded machine while every round was passing. Each round has its own GitHub
  // sandbox and state and kills at a count of its own sandbox's writes (not at a time), so
  // CONCURRENT rounds run at a time (a round waiting for its turn counts in its timeout: two
  // rounds' worth at most). The kill moments are drawn up front, in round order, so each round
  // kills where it did when the rounds ran one after the other.
  const random = prng(20261121);
  const fractions = Array.from({ length: ROUNDS }, () => random());
  const killed: number[] = [];
  const inTurn = limiter(CONCURRENT);
  it.concurrent.for(Array.from({ length: ROUNDS }, (_, round) => round))(
    `gives the uninterrupted result after a kill (round %i of ${String(ROUNDS)} kills)`,
    { timeout: 120_000 },
    (round, { expect }) =>
      inTurn(async () => {
        const github = await startGithubSandbox({ rateLimits: "off" });
        const roundDir = mkdtempSync(join(dir, `round-${String(round)}-`));
        try {
          const config = writeConfig(roundDir, tinypm, github);
          const fraction = fractions[round];
          if (fraction === undefined) throw new Error(`no kill moment drawn for round ${round}`);
          const writes = 1 + Math.floor(fraction * (fullWrites - 2));
          const first = await migrate(config, env(github), { writes, github });
          if (first.code === null) killed.push(github.stats().writes);
          const rerun = await migrate(config, env(github));
          expect({ round, code: rerun.code, stderr: rerun.stderr }).toEqual({
            round,
            code: 0,
            stderr: "",
          });
          expect(await contents(github)).toEqual(expected);
          const state = openSqliteStore({ path: join(roundDir, "state.db") });
          try {
            expect(state.pendingIntents("gh")).toEqual([]);
            expect(state.failures("gh")).toEqual([]);
          } finally {
            state.close();
          }
        } finally {
          await github.close();
        }
      }),
  );

  it(`the ${String(ROUNDS)} kills landed while the migration was writing`, () => {
    // A child may rarely finish first.
    expect(killed.length).toBeGreaterThanOrEqual(ROUNDS - 2);
  });
});
