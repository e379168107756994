import { createTarget, createTinypm } from "../adapters/registry.js";
import type { BoardSpec } from "../core/board.js";
import type { Tracker } from "../core/tracker.js";
import { limitsFor, type LoadedConfig, type ResolvedJob } from "../config/load.js";
import type { LimitsConfig } from "../config/schema.js";
import type { GateEvent } from "../core/request-gate.js";
import type { SharedBudget } from "../core/shared-budget.js";
import type { WriteFence } from "../core/write-fence.js";
import type { Logger } from "../log/logger.js";
import { serviceShape, type GateLimits } from "../gate/gate-limits.js";
import type { RunGate } from "../gate/gate.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../gate/retry.js";
import {
  firstTimeWarned,
  openSharedGate,
  tokenLimits,
  type GateOwner,
  type TokenUse,
} from "../gate/gate-registry.js";
import { systemLabel } from "../core/system-label.js";

/** A job's two trackers and their request gates (shared per token within the process). */
export interface JobTrackers {
  readonly tinypm: Tracker;
  readonly target: Tracker;
  readonly tinypmGate: RunGate;
  readonly targetGate: RunGate;
  close(): Promise<void>;
}

export interface TrackerRun {
  /** Every request gate event (waits, retries, requests). */
  readonly onGateEvent: (e: GateEvent) => void;
  readonly signal?: AbortSignal | undefined;
  /** Wait out any limit instead of stopping when a wait exceeds the budget. */
  readonly waitForLimits?: boolean | undefined;
  /** The state's budget shared with other processes (PostgreSQL). */
  readonly budget?: SharedBudget | undefined;
  /** The run's job lease as a fence: no write once it is lost (src/core/write-fence.ts). */
  readonly fence?: WriteFence | undefined;
  /** `false`: send each request once (a probe reports what it sees); default: the gate's retries. */
  readonly retries?: false | undefined;
  /** The mapping's GitHub Project (v2) board (`project:` section), for a GitHub target with one. */
  readonly board?: BoardSpec | undefined;
}

/** One attempt per request, refusals included. */
const NO_RETRIES: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 1 };

/**
 * The one builder of a job's connections: tinyPM and the target as the resolved config
 * describes them (limits, timeouts, importApi, boardId, storyPointsField), each behind the
 * request gate of its token. Every command that contacts the systems (sync, serve, check) opens
 * them here, so none of them drops a setting.
 */
export function openTrackers(
  session: { readonly loaded: LoadedConfig; readonly logger: Logger },
  resolved: ResolvedJob,
  run: TrackerRun,
): JobTrackers {
  const { loaded, logger } = session;
  const t = resolved.target;
  const policy = run.retries === false ? NO_RETRIES : undefined;
  // The run's wait budget per system (`limits.maxWaitMs`); --wait-for-limits waits whatever it takes.
  const gateRun = (system: "tinypm" | "github" | "jira", limits: LimitsConfig | undefined) => ({
    signal: run.signal,
    onEvent: run.onGateEvent,
    maxWaitMs: run.waitForLimits === true ? Infinity : limitsFor(system, limits).maxWaitMs,
    fence: run.fence,
  });
  // Limits belong to a token: jobs of this process using the same one share its gate,
  // and two jobs of one config that configure the token differently both get the strictest.
  const uses = tokenUses(loaded.jobs);
  const limitsOf = (owner: GateOwner, own: GateLimits): GateLimits => {
    const { limits, warning } = tokenLimits(owner, own, uses);
    if (warning !== undefined && firstTimeWarned(warning)) logger.warn(warning);
    return limits;
  };
  const tinypmOwner = {
    system: "tinypm" as const,
    baseUrl: resolved.tinypm.baseUrl,
    token: resolved.tinypm.token,
  };
  const tinypmGate = openSharedGate(
    tinypmOwner,
    limitsOf(tinypmOwner, gateLimits("tinypm", resolved.tinypm.limits, resolved.tinypm.timeoutMs)),
    gateRun("tinypm", resolved.tinypm.limits),
    { label: `tinyPM (${resolved.tinypm.baseUrl})`, budget: run.budget, policy },
  );
  const targetOwner = { system: t.type, baseUrl: t.baseUrl, token: t.token };
  const targetGate = openSharedGate(
    targetOwner,
    limitsOf(targetOwner, gateLimits(t.type, t.limits, t.timeoutMs)),
    gateRun(t.type, t.limits),
    {
      label: `${systemLabel(t.type)} (${t.baseUrl})`,
      budget: run.budget,
      policy,
    },
  );
  const tinypm = createTinypm({
    baseUrl: resolved.tinypm.baseUrl,
    token: resolved.tinypm.token,
    projectId: resolved.job.tinypmProject,
    concurrency: limitsFor("tinypm", resolved.tinypm.limits).concurrency,
    timeoutMs: resolved.tinypm.timeoutMs,
    logger: logger.child({ system: "tinypm" }),
    gate: tinypmGate,
  });
  // The resolved target as is: one connection type from the config to the adapter.
  const target = createTarget({
    ...t,
    logger: logger.child({ system: t.type }),
    gate: targetGate,
    board: run.board,
  });
  return {
    tinypm,
    target,
    tinypmGate,
    targetGate,
    async close() {
      await Promise.allSettled([tinypm.close(), target.close()]);
      tinypmGate.close();
      targetGate.close();
    },
  };
}

/** A system's gate limits: the config's (with the vendor's defaults) in the service's shape. */
export function gateLimits(
  system: "tinypm" | "github" | "jira",
  limits: LimitsConfig | undefined,
  timeoutMs: number | undefined,
): GateLimits {
  // The wait budget is a run's, not the token's: it is not one of the gate's limits.
  const { maxWaitMs: _budget, ...own } = limitsFor(system, limits);
  return { ...own, ...serviceShape(system), timeoutMs };
}

/** Every job's use of its tinyPM token and its target's token, with the limits it configures. */
function tokenUses(jobs: readonly ResolvedJob[]): TokenUse[] {
  return jobs.flatMap((j) => [
    {
      job: j.job.name,
      owner: { system: "tinypm" as const, baseUrl: j.tinypm.baseUrl, token: j.tinypm.token },
      limits: gateLimits("tinypm", j.tinypm.limits, j.tinypm.timeoutMs),
    },
    {
      job: j.job.name,
      owner: { system: j.target.type, baseUrl: j.target.baseUrl, token: j.target.token },
      limits: gateLimits(j.target.type, j.target.limits, j.target.timeoutMs),
    },
  ]);
}
