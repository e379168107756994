import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTarget, createTinypm, type TargetConnection } from "../../src/adapters/registry.js";
import { instanceFingerprint } from "../../src/core/identity.js";
import type { SystemName } from "../../src/core/model.js";
import type { RequestGate } from "../../src/core/request-gate.js";
import type { Tracker } from "../../src/core/tracker.js";
import { loadMapping } from "../../src/mapping/load.js";
import { boardSpecOf } from "../../src/mapping/project.js";
import type { GithubProjectRef } from "../../src/adapters/connection.js";
import { createLanes } from "../../src/gate/lanes.js";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import {
  startGithubSandbox,
  type GithubSandbox,
  type GithubSandboxOptions,
} from "../../src/sandboxes/github/index.js";
import {
  startJiraSandbox,
  type JiraSandbox,
  type JiraSandboxOptions,
} from "../../src/sandboxes/jira/index.js";
import { openSqliteState } from "../../src/state/sqlite-state.js";
import {
  openSqliteStore,
  type ConflictRecord,
  type LinkRecord,
} from "../../src/state/sqlite-store.js";
import type { StateStore } from "../../src/state/store.js";
import { runEngine, type RunMode, type RunReport } from "../../src/sync/engine.js";
import type { PlanJob } from "../../src/sync/plan/plan-input.js";
import type { SyncEvent } from "../../src/sync/events.js";
import { githubSandboxConnection, jiraSandboxConnection } from "../support/sandbox-connection.js";

const MAPPINGS = { github: "mappings/github.yaml", jira: "mappings/jira.yaml" } as const;

/** A tinyPM reference server, a target sandbox and a state file, wired to the real engine. */
export interface World {
  readonly tinypm: ReferenceServer;
  readonly target:
    | { readonly kind: "github"; readonly server: GithubSandbox }
    | { readonly kind: "jira"; readonly server: JiraSandbox };
  readonly statePath: string;
  run(
    mode: RunMode,
    job?: Partial<PlanJob> & {
      tinypmServer?: ReferenceServer;
      now?: () => Date;
      /** Another state file (another installation of the tool). */
      statePath?: string;
      /** Another state (e.g. PostgreSQL): opened for the run, closed after it. */
      openState?: () => Promise<StateStore>;
      /** Plan only (`plan`): nothing is written anywhere. */
      dryRun?: boolean;
      /** `sync --full`: read all of tinyPM. */
      fullScan?: boolean;
      fullScanEvery?: number;
      /** A webhook's run: only these target items and their tinyPM counterparts. */
      targetItems?: readonly string[];
      /** Where the run's target tracker connects instead of the sandbox (e.g. a proxy in front). */
      targetUrl?: string;
      /** Wraps the run's target tracker (e.g. to act as a person at a precise moment). */
      wrapTarget?: (tracker: Tracker) => Tracker;
      /** Wraps the run's tinyPM tracker (e.g. to follow the items it hands the run). */
      wrapTinypm?: (tracker: Tracker) => Tracker;
      /** Wraps the run's state (e.g. to stop the run at a precise state write). */
      wrapState?: (state: StateStore) => StateStore;
      /** The request gate of the run's tinyPM tracker (e.g. to act as a person at a precise request). */
      tinypmGate?: RequestGate;
      /** Every event of the run as it happens, display events included. */
      onEvent?: (e: SyncEvent) => void;
    },
  ): Promise<RunReport>;
  targetTracker(): Tracker;
  tinypmTracker(): Tracker;
  close(): Promise<void>;
}

export async function startWorld(o: {
  target: "github" | "jira";
  generate?: string;
  seed?: number;
  /** Options of the Jira sandbox (e.g. its default priority). */
  jira?: JiraSandboxOptions;
  /** Options of the GitHub sandbox (e.g. its clock). */
  github?: GithubSandboxOptions;
  /** A GitHub Project (v2) board (`targets.github.project`), with mappings/github-project.yaml. */
  project?: GithubProjectRef;
}): Promise<World> {
  const mappingFile = o.project === undefined ? MAPPINGS[o.target] : "mappings/github-project.yaml";
  const tinypm = await startReferenceServer({ generate: o.generate ?? "small", seed: o.seed ?? 1 });
  const target =
    o.target === "github"
      ? ({ kind: "github", server: await startGithubSandbox(o.github) } as const)
      : ({ kind: "jira", server: await startJiraSandbox(o.jira) } as const);
  const statePath = join(mkdtempSync(join(tmpdir(), "tps-world-")), "state.db");
  const connection = (): TargetConnection => {
    if (target.kind !== "github") return jiraSandboxConnection(target.server);
    const github = githubSandboxConnection(target.server);
    return o.project === undefined || github.type !== "github"
      ? github
      : { ...github, project: o.project, board: boardSpecOf(loadMapping(mappingFile)) };
  };
  const world: World = {
    tinypm,
    target,
    statePath,
    targetTracker: () => createTarget(connection()),
    tinypmTracker: () => createTinypm({ baseUrl: tinypm.url, token: tinypm.token, projectId: 1 }),
    async run(mode, job = {}) {
      const server = job.tinypmServer ?? tinypm;
      const state: StateStore =
        job.openState === undefined
          ? await openSqliteState({ path: job.statePath ?? statePath })
          : await job.openState();
      const tinypmTracker = createTinypm({
        baseUrl: server.url,
        token: server.token,
        projectId: 1,
        gate: job.tinypmGate,
      });
      const targetTracker = createTarget(
        job.targetUrl === undefined ? connection() : { ...connection(), baseUrl: job.targetUrl },
      );
      const runTarget =
        job.wrapTarget === undefined ? targetTracker : job.wrapTarget(targetTracker);
      const system: SystemName = target.kind;
      try {
        return await runEngine({
          mode,
          dryRun: job.dryRun === true,
          job: {
            name: "widgets",
            direction: "both",
            conflicts: "manual",
            onDelete: "close",
            ...(job.name === undefined ? {} : { name: job.name }),
            ...(job.direction === undefined ? {} : { direction: job.direction }),
            ...(job.conflicts === undefined ? {} : { conflicts: job.conflicts }),
            ...(job.onDelete === undefined ? {} : { onDelete: job.onDelete }),
            instance: instanceFingerprint(server.url),
            project: "1",
            ...(job.repairMarkers === undefined ? {} : { repairMarkers: job.repairMarkers }),
            ...(job.importFrom === undefined ? {} : { importFrom: job.importFrom }),
          },
          targetSystem: system,
          tinypm: job.wrapTinypm === undefined ? tinypmTracker : job.wrapTinypm(tinypmTracker),
          target: runTarget,
          mappingSpec: loadMapping(mappingFile),
          state: job.wrapState === undefined ? state : job.wrapState(state),
          ...(job.now === undefined ? {} : { now: job.now }),
          fullScan: job.fullScan,
          fullScanEvery: job.fullScanEvery,
          targetItems: job.targetItems,
          ...(job.onEvent === undefined ? {} : { emit: job.onEvent }),
          lanes: createLanes({
            limits: { tinypm: { concurrency: 8 }, [system]: { concurrency: 4 } },
          }),
        });
      } finally {
        await state.close();
        await tinypmTracker.close();
        await targetTracker.close();
      }
    },
    async close() {
      await tinypm.close();
      await target.server.close();
    },
  };
  return world;
}

/** The job's story links in the world's state; fewer than `least` means the setup went wrong. */
export function storyLinks(world: World, least: number): LinkRecord[] {
  const state = openSqliteStore({ path: world.statePath });
  try {
    const stories = [...state.links("widgets")].filter((l) => l.kind === "story");
    if (stories.length < least) throw new Error(`only ${String(stories.length)} stories linked`);
    return stories;
  } finally {
    state.close();
  }
}

/** The job's open conflicts in the world's state. */
export function openConflicts(world: World): ConflictRecord[] {
  const state = openSqliteStore({ path: world.statePath });
  try {
    return state.conflicts({ job: "widgets", status: "open" });
  } finally {
    state.close();
  }
}
