import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { createGithubTracker } from "../../src/adapters/github/index.js";
import { createJiraTracker } from "../../src/adapters/jira/index.js";
import { createTinypmTracker } from "../../src/adapters/tinypm/index.js";
import type { SystemName } from "../../src/core/model.js";
import type { Tracker } from "../../src/core/tracker.js";
import { loadMapping } from "../../src/mapping/load.js";
import type { RequestGate } from "../../src/core/request-gate.js";
import { createGate, type RunGate } from "../../src/gate/gate.js";
import { createLanes } from "../../src/gate/lanes.js";
import type { RetryPolicy } from "../../src/gate/retry.js";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { openSqliteState } from "../../src/state/sqlite-state.js";
import { runEngine, type RunMode, type RunReport } from "../../src/sync/engine.js";
import type { PlanJob } from "../../src/sync/plan/plan-input.js";

export type TargetKind = "github" | "jira";
const MAPPINGS = { github: "mappings/github.yaml", jira: "mappings/jira.yaml" } as const;

/**
 * Fast retries: millisecond backoff, and an attempt budget near the default (6): a lane call's
 * requests are retried one by one, so a request that fails 12 times running at 10 % per fault
 * kind is all that could stop a run (about 1 in 10^7 per request).
 */
export const FAST_RETRY: RetryPolicy = {
  maxAttempts: 12,
  baseDelayMs: 2,
  maxDelayMs: 20,
  maxTotalMs: 24 * 3_600_000,
};

/** A budget that gives up at once: a remote that stays down aborts the run. */
export const SHORT_RETRY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 1,
  maxDelayMs: 5,
  maxTotalMs: 2_000,
};

/** Client timeout short enough for `timeout` faults to cost little. */
export const CLIENT_TIMEOUT_MS = 250;

/**
 * The gates' and lanes' clock, fast-forwarded: a wait the remote asks for (Retry-After, GitHub's
 * 60 s secondary default) sleeps at most 25 ms of real time and moves the clock the rest of the way.
 */
function fastClock(): { now: () => number; sleep: (ms: number, s?: AbortSignal) => Promise<void> } {
  let skew = 0;
  return {
    now: () => Date.now() + skew,
    sleep: async (ms, signal) => {
      const real = Math.min(ms, 25);
      skew += ms - real;
      await delay(real, undefined, signal ? { signal } : {});
    },
  };
}

/**
 * A run's request gates with `policy` on the fast clock: they retry each failed request (the
 * lanes only run a create again once its effect was not found). No limits: the sandboxes run
 * with theirs off.
 */
export function runGates(
  system: SystemName,
  policy: RetryPolicy,
): { tinypm: RunGate; target: RunGate } {
  const make = (s: SystemName): RunGate =>
    createGate({ system: s, limits: { concurrency: 8 }, policy, clock: fastClock() }).forRun({
      maxWaitMs: Infinity,
    });
  return { tinypm: make("tinypm"), target: make(system) };
}

function githubConsistency(lagMs: number | undefined) {
  return lagMs === undefined ? {} : { consistency: "eventual" as const, consistencyLagMs: lagMs };
}

function jiraConsistency(lagMs: number | undefined) {
  return lagMs === undefined ? {} : { consistency: "eventual" as const, indexingLagMs: lagMs };
}

/** A tinyPM reference server, a target sandbox, and a state file, wired to the real engine. */
export interface ReliabilityWorld {
  readonly tinypm: ReferenceServer;
  readonly kind: TargetKind;
  readonly target: GithubSandbox | JiraSandbox;
  /** The state file of the current scenario (a fresh one after `reset`). */
  readonly statePath: string;
  /** Restores both servers' data, clears faults and stats, and starts a new state file. */
  reset(): void;
  run(mode: RunMode, opts?: RunOptions): Promise<RunReport>;
  /** Trackers for the test's own reads and edits (a patient timeout, no faults expected). */
  tinypmTracker(server?: ReferenceServer, timeoutMs?: number, gate?: RequestGate): Tracker;
  targetTracker(timeoutMs?: number, gate?: RequestGate): Tracker;
  targetWrites(): number;
  close(): Promise<void>;
}

export interface RunOptions {
  readonly job?: Partial<PlanJob>;
  readonly tinypmServer?: ReferenceServer;
  readonly policy?: RetryPolicy;
  /** `sync --full`: read all of tinyPM, closed iterations included. */
  readonly fullScan?: boolean;
}

export async function startReliabilityWorld(o: {
  target: TargetKind;
  generate?: string;
  seed?: number;
  /** Eventual consistency: listings (GitHub) and JQL search (Jira) lag writes by this much. */
  eventualLagMs?: number;
  /**
   * The sandbox's time source (epoch ms): a test that moves it by hand decides when listings
   * settle, whatever the machine's speed. @default Date.now
   */
  sandboxNow?: () => number;
}): Promise<ReliabilityWorld> {
  const seed = o.seed ?? 1;
  const now = o.sandboxNow === undefined ? {} : { now: o.sandboxNow };
  const tinypm = await startReferenceServer({ generate: o.generate ?? "small", seed });
  const target =
    o.target === "github"
      ? await startGithubSandbox({ seed, ...githubConsistency(o.eventualLagMs), ...now })
      : await startJiraSandbox({ seed, ...jiraConsistency(o.eventualLagMs), ...now });
  const newStatePath = (): string => join(mkdtempSync(join(tmpdir(), "tps-rel-")), "state.db");
  let statePath = newStatePath();
  const targetTracker = (timeoutMs = 10_000, gate?: RequestGate): Tracker =>
    o.target === "github"
      ? createGithubTracker({
          baseUrl: target.url,
          token: target.token,
          owner: (target as GithubSandbox).owner,
          repo: (target as GithubSandbox).repo,
          timeScale: 1000,
          timeoutMs,
          gate,
        })
      : createJiraTracker({
          baseUrl: target.url,
          projectKey: (target as JiraSandbox).projectKey,
          email: (target as JiraSandbox).email,
          token: target.token,
          timeoutMs,
          gate,
        });
  const tinypmTracker = (
    server: ReferenceServer = tinypm,
    timeoutMs = 10_000,
    gate?: RequestGate,
  ): Tracker =>
    createTinypmTracker({
      baseUrl: server.url,
      token: server.token,
      projectId: 1,
      timeoutMs,
      gate,
    });
  return {
    tinypm,
    kind: o.target,
    target,
    get statePath() {
      return statePath;
    },
    reset() {
      tinypm.setFaults("");
      target.setFaults("");
      tinypm.reset();
      target.reset();
      statePath = newStatePath();
    },
    tinypmTracker,
    targetTracker,
    targetWrites: () => target.stats().writes,
    async run(mode, opts = {}) {
      const state = await openSqliteState({ path: statePath });
      const system: SystemName = o.target;
      const gates = runGates(system, opts.policy ?? FAST_RETRY);
      const t = tinypmTracker(opts.tinypmServer, CLIENT_TIMEOUT_MS, gates.tinypm);
      const g = targetTracker(CLIENT_TIMEOUT_MS, gates.target);
      try {
        return await runEngine({
          mode,
          job: {
            name: "widgets",
            direction: "both",
            conflicts: "manual",
            onDelete: "close",
            ...opts.job,
          },
          targetSystem: system,
          tinypm: t,
          target: g,
          mappingSpec: loadMapping(MAPPINGS[o.target]),
          fullScan: opts.fullScan,
          state,
          lanes: createLanes({
            limits: { tinypm: { concurrency: 4 }, [system]: { concurrency: 4 } },
            gates: { tinypm: gates.tinypm, [system]: gates.target },
            policy: opts.policy ?? FAST_RETRY,
            ...fastClock(),
          }),
        });
      } finally {
        await state.close();
        await t.close();
        await g.close();
      }
    },
    async close() {
      await tinypm.close();
      await target.close();
    },
  };
}
