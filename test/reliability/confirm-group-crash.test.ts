import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGithubTracker } from "../../src/adapters/github/index.js";
import { createJiraTracker } from "../../src/adapters/jira/index.js";
import { createTinypmTracker } from "../../src/adapters/tinypm/index.js";
import type { Tracker } from "../../src/core/tracker.js";
import { openState, type StateLocation } from "../../src/state/open-state.js";
import {
  postgresSkipReason,
  startPostgres,
  type PostgresServer,
} from "../support/postgres-server.js";
import { ensureBuilt, runCli, spawnCli } from "./cli.js";
import { startCliWorld, type CliWorld } from "./cli-world.js";
import { duplicates, listAll, targetView } from "./snapshot.js";

/*
 * Group commit of confirmations (src/sync/apply/confirm-group.ts): a target create's intent is
 * committed before the create, its link joins a group committed later. Here `migrate` is
 * SIGKILLed while a group is buffered — TINYPM_SYNC_CONFIRM_WAIT_MS holds the group open for the
 * whole run and the 36 creates stay under the group's size, so at the kill every created item
 * is on the target with no link in the state, only its intent — and then run again: every
 * created item is linked by its marker, none is created twice, and none is missing.
 */

const GENERATE = "stories=12,tasks=2,comments=1";
const ITEMS = 12 + 24;

let pg: PostgresServer | undefined;
beforeAll(async () => {
  ensureBuilt();
  if (postgresSkipReason === undefined) pg = await startPostgres();
}, 120_000);
afterAll(async () => {
  await pg?.stop();
});

async function using<T>(tracker: Tracker, fn: (t: Tracker) => Promise<T>): Promise<T> {
  try {
    return await fn(tracker);
  } finally {
    await tracker.close();
  }
}

function targetTracker(w: CliWorld, target: "github" | "jira"): Tracker {
  return target === "github"
    ? createGithubTracker({
        baseUrl: w.github.url,
        token: w.github.token,
        owner: w.github.owner,
        repo: w.github.repo,
      })
    : createJiraTracker({
        baseUrl: w.jira.url,
        projectKey: w.jira.projectKey,
        email: w.jira.email,
        token: w.jira.token,
      });
}

/** Runs `args` and SIGKILLs it once the target took `writes` writes; false if it ended first. */
function killAfterWrites(
  args: string[],
  w: CliWorld,
  env: Record<string, string>,
  target: "github" | "jira",
  writes: number,
): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawnCli(args, { env, cwd: w.dir });
    let killed = false;
    const poll = setInterval(() => {
      if (w.writes()[target] >= writes) killed = child.kill("SIGKILL");
    }, 2);
    child.on("close", () => {
      clearInterval(poll);
      resolve(killed);
    });
  });
}

const killAt = { github: 20, jira: 8 } as const;

async function crashCase(target: "github" | "jira", backend: "sqlite" | "postgres"): Promise<void> {
  const w = await startCliWorld({ generate: GENERATE, viaProxy: false });
  const job = target === "github" ? "gh" : "jr";
  const loc: StateLocation =
    backend === "sqlite"
      ? { backend: "sqlite", path: w.statePath }
      : { backend: "postgres", url: await pgServer().createDatabase(`cg_${job}`) };
  // PostgreSQL: the killed run's lease expires within 3 s; the rerun waits for it.
  const env = {
    ...w.env,
    ...(loc.backend === "postgres" ? { STATE_URL: loc.url, TINYPM_SYNC_LEASE_TTL_MS: "3000" } : {}),
  };
  const cfg = w.config((c) => {
    if (loc.backend === "postgres") c.state = { urlEnv: "STATE_URL", waitForLockMs: 60_000 };
  });
  const args = ["migrate", "--config", cfg, "--job", job, "--log-level", "error"];
  try {
    // No commit of the group before the kill: it waits up to 10 min and holds < 50 items.
    const held = { ...env, TINYPM_SYNC_CONFIRM_WAIT_MS: "600000" };
    expect(await killAfterWrites(args, w, held, target, killAt[target])).toBe(true);

    // At the kill: items created, their intents durable, no link committed yet.
    const made = await using(targetTracker(w, target), listAll);
    const atKill = await openState(loc, { readOnly: true });
    try {
      expect(made.length).toBeGreaterThan(0);
      expect(await atKill.countLinks(job)).toBe(0);
      const intents = await atKill.pendingIntents(job);
      expect(intents.length).toBeGreaterThanOrEqual(made.length);
      for (const item of made) {
        expect(intents.some((i) => i.originId === item.marker?.originId)).toBe(true);
      }
    } finally {
      await atKill.close();
    }

    const rerun = await runCli(args, { env, cwd: w.dir });
    expect(`${String(rerun.code)} ${rerun.stderr}`).toBe("0 ");

    const view = await using(targetTracker(w, target), targetView);
    const source = await using(
      createTinypmTracker({ baseUrl: w.tinypm.url, token: w.tinypm.token, projectId: 1 }),
      listAll,
    );
    expect(source).toHaveLength(ITEMS);
    expect(duplicates(view)).toEqual([]);
    expect(Object.keys(view.counts).sort()).toEqual(
      source.map((i) => `tinypm:${i.kind}:${i.id}`).sort(),
    );
    // Each item's comments, once: copied before the kill or after, never twice, none lost.
    const comments = (key: string): number =>
      (view.items[key] as { comments: unknown[] }).comments.length;
    expect(source.map((i) => comments(`tinypm:${i.kind}:${i.id}`))).toEqual(
      source.map((i) => i.comments.length),
    );
    expect(source.some((i) => i.comments.length > 0)).toBe(true);
    const after = await openState(loc, { readOnly: true });
    try {
      expect(await after.countLinks(job)).toBe(ITEMS);
      expect(await after.pendingIntents(job)).toEqual([]);
      expect(await after.failures(job)).toEqual([]);
      expect(await after.integrityCheck()).toBe("ok");
    } finally {
      await after.close();
    }
  } finally {
    await w.close();
  }
}

function pgServer(): PostgresServer {
  if (pg === undefined) throw new Error("no PostgreSQL server");
  return pg;
}

describe("SIGKILL while created items' confirmations are buffered, then a rerun", () => {
  it.each(["github", "jira"] as const)(
    "%s on SQLite: every item once, all linked, no intent left",
    async (target) => {
      expect.hasAssertions();
      await crashCase(target, "sqlite");
    },
    180_000,
  );
  it.skipIf(postgresSkipReason !== undefined).each(["github", "jira"] as const)(
    `%s on PostgreSQL: every item once, all linked, no intent left${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
    async (target) => {
      expect.hasAssertions();
      await crashCase(target, "postgres");
    },
    180_000,
  );
});
