import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTinypm } from "../../src/adapters/registry.js";
import { instanceFingerprint } from "../../src/core/identity.js";
import type { Tracker } from "../../src/core/tracker.js";
import { loadMapping } from "../../src/mapping/load.js";
import { createLanes } from "../../src/gate/lanes.js";
import { openState, type StateLocation } from "../../src/state/open-state.js";
import type { StateStore } from "../../src/state/store.js";
import { runEngine, type RunReport } from "../../src/sync/engine.js";
import { toReport } from "../../src/sync/report-data.js";
import {
  postgresSkipReason,
  startPostgres,
  type PostgresServer,
} from "../support/postgres-server.js";
import { openIssue } from "./identity-kit.js";
import { startWorld, type World } from "./world.js";

/*
 * Two jobs (two tinyPM projects) share one repository or Jira project. A person opens issues;
 * both jobs then run at the same time — on one SQLite state, or as two workers (two stores, two
 * connection pools) on one PostgreSQL state — each reading the target before either writes (a
 * barrier in the target's user listing, which every run with new issues calls between its read
 * and its plan). Every issue must become exactly one tinyPM story across both projects.
 */

const ISSUES = 6;
const MAPPINGS = { github: "mappings/github.yaml", jira: "mappings/jira.yaml" } as const;
const JOBS = [
  { name: "web", project: 1 },
  { name: "ops", project: 2 },
] as const;

let pg: PostgresServer | undefined;
beforeAll(async () => {
  if (postgresSkipReason === undefined) pg = await startPostgres();
}, 120_000);
afterAll(async () => {
  await pg?.stop();
});

/** Lets each caller of `listUsers` through once `parties` callers have arrived. */
function barrier(parties: number): () => Promise<void> {
  let arrived = 0;
  let open: () => void = () => undefined;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return async () => {
    arrived += 1;
    if (arrived >= parties) open();
    await opened;
  };
}

function waitingTarget(tracker: Tracker, wait: () => Promise<void>): Tracker {
  return new Proxy(tracker, {
    get(target, name, receiver) {
      if (name !== "listUsers") return Reflect.get(target, name, receiver) as unknown;
      return async (...args: Parameters<Tracker["listUsers"]>) => {
        await wait();
        return target.listUsers(...args);
      };
    },
  });
}

function storeOf(stores: readonly StateStore[], i: number): StateStore {
  const store = stores[i % stores.length];
  if (store === undefined) throw new Error("no state store");
  return store;
}

async function runBoth(
  world: World,
  stores: readonly StateStore[],
  how: { mode: "sync" | "migrate"; dryRun: boolean } = { mode: "sync", dryRun: false },
): Promise<RunReport[]> {
  const wait = barrier(JOBS.length);
  const system = world.target.kind;
  return Promise.all(
    JOBS.map(async (job, i) => {
      const tinypm = createTinypm({
        baseUrl: world.tinypm.url,
        token: world.tinypm.token,
        projectId: job.project,
      });
      const target = world.targetTracker();
      try {
        return await runEngine({
          ...how,
          job: {
            name: job.name,
            direction: "both",
            conflicts: "manual",
            onDelete: "close",
            instance: instanceFingerprint(world.tinypm.url),
            project: String(job.project),
          },
          targetSystem: system,
          targetLocation: `${system}:shared-test`,
          tinypm,
          target: waitingTarget(target, wait),
          mappingSpec: loadMapping(MAPPINGS[system]),
          state: storeOf(stores, i),
          leaseWaitMs: 30_000,
          lanes: createLanes({
            limits: { tinypm: { concurrency: 4 }, [system]: { concurrency: 4 } },
          }),
        });
      } finally {
        await tinypm.close();
        await target.close();
      }
    }),
  );
}

async function storyTitles(world: World): Promise<string[]> {
  const titles: string[] = [];
  for (const job of JOBS) {
    const tinypm = createTinypm({
      baseUrl: world.tinypm.url,
      token: world.tinypm.token,
      projectId: job.project,
    });
    try {
      for await (const s of tinypm.list({ kind: "story" })) titles.push(s.title);
    } finally {
      await tinypm.close();
    }
  }
  return titles.sort();
}

async function sharedTargetCase(world: World, stores: readonly StateStore[]): Promise<void> {
  const person = world.targetTracker();
  const opened: string[] = [];
  try {
    for (let i = 1; i <= ISSUES; i++)
      opened.push((await openIssue(world, person, `Shared issue ${i}`)).title);
  } finally {
    await person.close();
  }
  const first = await runBoth(world, stores);
  // One story per issue across both projects: no issue imported twice.
  expect(await storyTitles(world)).toEqual(opened.sort());
  expect(first.map((r) => r.summary.failed)).toEqual([0, 0]);
  expect(first.reduce((n, r) => n + r.summary.created, 0)).toBe(ISSUES);
  // The job that lost a claim says so once per issue, not as a failure.
  const left = first.flatMap((r) =>
    r.plan.actions.filter((a) => a.type === "create" && a.toSide === "tinypm"),
  );
  expect(left.length).toBeGreaterThanOrEqual(ISSUES);
  const claimedEvents = first.flatMap((r) =>
    r.events.filter((e) => e.type === "skipped" && e.reason === "claimed"),
  );
  const planSkips = first.flatMap((r) =>
    r.plan.actions.filter((a) => a.type === "skip" && a.reason === "claimed"),
  );
  expect(claimedEvents.length + planSkips.length + ISSUES).toBe(2 * ISSUES);
  const reported = first.flatMap((r) =>
    toReport(r)
      .items.filter((i) => i.action === "skip" && i.reason?.startsWith("imported by job") === true)
      .map((i) => `${r.job}: ${i.title} ${i.reason ?? ""}`),
  );
  expect(reported).toHaveLength(ISSUES);
  for (const line of reported)
    expect(line).toMatch(/^(web: .* imported by job ops|ops: .* imported by job web)$/);
  const notes = first.flatMap((r) => toReport(r).notes.filter((n) => n.includes("shared target")));
  expect(notes.length).toBeGreaterThanOrEqual(1);
  // Both jobs are quiet afterwards: nothing to create, nothing failed.
  const second = await runBoth(world, stores);
  expect(second.map((r) => [r.summary.created, r.summary.failed])).toEqual([
    [0, 0],
    [0, 0],
  ]);
  expect(await storyTitles(world)).toEqual(opened.sort());
  // A plan reading the whole target names each issue, now marked by the job that imported it,
  // as that job's import in the other job's report (not as a foreign item), once.
  const whole = await runBoth(world, stores, { mode: "migrate", dryRun: true });
  const named = whole.flatMap((r) =>
    toReport(r)
      .items.filter((i) => i.reason?.startsWith("imported by job") === true)
      .map((i) => `${r.job}: ${i.title} ${i.reason ?? ""}`),
  );
  expect(named).toHaveLength(ISSUES);
  for (const line of named)
    expect(line).toMatch(/^(web: .* imported by job ops|ops: .* imported by job web)$/);
  expect(whole.flatMap((r) => toReport(r).items.filter((i) => i.reason === "foreign"))).toEqual([]);
  for (const s of stores) {
    expect(await s.pendingIntents("web")).toEqual([]);
    expect(await s.pendingIntents("ops")).toEqual([]);
  }
}

describe.each(["github", "jira"] as const)("two jobs sharing one %s target", (target) => {
  it("one SQLite state, both jobs at once: each issue imported exactly once", async () => {
    const world = await startWorld({ target, generate: "stories=0" });
    const state = await openState({ backend: "sqlite", path: world.statePath });
    try {
      expect.hasAssertions();
      await sharedTargetCase(world, [state]);
    } finally {
      await state.close();
      await world.close();
    }
  }, 120_000);

  it.skipIf(postgresSkipReason !== undefined)(
    `two workers on one PostgreSQL state, both jobs at once: each issue imported exactly once${postgresSkipReason === undefined ? "" : ` (skipped: ${postgresSkipReason})`}`,
    async () => {
      if (pg === undefined) throw new Error("no PostgreSQL");
      const world = await startWorld({ target, generate: "stories=0" });
      const url = await pg.createDatabase(`shared_${target}`);
      const loc: StateLocation = { backend: "postgres", url };
      const stores = [await openState(loc), await openState(loc)];
      try {
        expect.hasAssertions();
        await sharedTargetCase(world, stores);
      } finally {
        for (const s of stores) await s.close();
        await world.close();
      }
    },
    120_000,
  );
});
