import { createTarget, createTinypm } from "../adapters/registry.js";
import type { SystemName } from "../core/model.js";
import type { Tracker } from "../core/tracker.js";
import { limitsFor, type LoadedConfig, type ResolvedJob } from "../config/load.js";
import type { LimitsConfig } from "../config/schema.js";
import type { GateEvent } from "../core/request-gate.js";
import type { SharedBudget } from "../core/shared-budget.js";
import { serviceShape, type GateLimits } from "../queue/gate-limits.js";
import {
  firstTimeWarned,
  openSharedGate,
  tokenLimits,
  type GateOwner,
  type TokenUse,
} from "../queue/gate-registry.js";
import type { Logger } from "../log/logger.js";
import { loadMapping } from "../mapping/load.js";
import type { MappingSpec } from "../mapping/schema.js";
import { loadUserMap, type UserMap } from "../mapping/users.js";
import { createLanes, type Lanes } from "../queue/lanes.js";
import { openState as openStateAt } from "../state/open-state.js";
import type { StateStore } from "../state/store.js";
import type { SyncEvent } from "../sync/events.js";
import { MappingError } from "../core/errors.js";

/** A loaded config and the logger its jobs log to (the CLI's and the library's starting point). */
export interface ConfigSession {
  readonly loaded: LoadedConfig;
  readonly logger: Logger;
}

/** Everything one job run needs, built from its resolved config. */
export interface JobSession {
  readonly resolved: ResolvedJob;
  readonly targetSystem: SystemName;
  readonly tinypm: Tracker;
  readonly target: Tracker;
  readonly mappingSpec: MappingSpec;
  readonly userMap: UserMap | undefined;
  readonly lanes: Lanes;
  close(): Promise<void>;
}

/**
 * Loads the job's mapping, checks it fits the target, and builds the trackers, their request
 * gates (shared per token within the process) and the lanes. `waitForLimits`: wait out any
 * limit instead of stopping the run when a wait exceeds the budget.
 */
export function openJob(
  session: ConfigSession,
  resolved: ResolvedJob,
  onEvent: (e: SyncEvent) => void,
  signal?: AbortSignal,
  options: {
    waitForLimits?: boolean | undefined;
    /** Also told every request gate event as it is (every request with its status, every wait). */
    onGateEvent?: ((e: GateEvent) => void) | undefined;
    /** The state's budget shared with other processes (PostgreSQL): every token's writes are booked there too. */
    budget?: SharedBudget | undefined;
  } = {},
): JobSession {
  const { loaded, logger } = session;
  const mappingSpec = loadMapping(resolved.mappingPath);
  if (mappingSpec.to !== resolved.target.type) {
    throw new MappingError(
      `${resolved.mappingPath} maps to ${mappingSpec.to}, but job "${resolved.job.name}" targets ${resolved.target.type} ("${resolved.target.name}").`,
      {
        issues: [
          {
            file: resolved.mappingPath,
            path: ["to"],
            message: `expected "${resolved.target.type}" (found "${mappingSpec.to}")`,
          },
        ],
        hint: `Point the job's "mapping" at mappings/${resolved.target.type}.yaml or a copy of it.`,
      },
    );
  }
  const userMap = loaded.usersPath === undefined ? undefined : loadUserMap(loaded.usersPath);
  const targetSystem: SystemName = resolved.target.type;
  const t = resolved.target;
  const toRun = gateEventsTo(onEvent);
  const tap = options.onGateEvent;
  const run = {
    signal,
    onEvent:
      tap === undefined
        ? toRun
        : (e: GateEvent): void => {
            toRun(e);
            tap(e);
          },
    maxWaitMs: options.waitForLimits === true ? Infinity : undefined,
  };
  // Limits belong to a token: jobs of this process using the same one share its gate.
  // …and two jobs of one config that configure the token differently both get the strictest.
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
    run,
    { label: `tinyPM (${resolved.tinypm.baseUrl})`, budget: options.budget },
  );
  const targetGate = openSharedGate(
    { system: targetSystem, baseUrl: t.baseUrl, token: t.token },
    limitsOf(
      { system: targetSystem, baseUrl: t.baseUrl, token: t.token },
      gateLimits(targetSystem, t.limits, t.timeoutMs),
    ),
    run,
    {
      label: `${targetSystem === "github" ? "GitHub" : "Jira"} (${t.baseUrl})`,
      budget: options.budget,
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
  const target =
    t.type === "github"
      ? createTarget({
          type: "github",
          baseUrl: t.baseUrl,
          owner: t.owner,
          repo: t.repo,
          token: t.token,
          tokenEnv: t.tokenEnv,
          importApi: t.importApi,
          logger: logger.child({ system: "github" }),
          gate: targetGate,
        })
      : createTarget({
          type: "jira",
          baseUrl: t.baseUrl,
          project: t.project,
          email: t.email ?? "",
          token: t.token,
          emailEnv: t.emailEnv,
          tokenEnv: t.tokenEnv,
          boardId: t.boardId,
          storyPointsField: t.storyPointsField,
          logger: logger.child({ system: "jira" }),
          gate: targetGate,
        });
  const lanes = createLanes({
    // Item operations in parallel; the request limits are the gates' alone.
    limits: {
      tinypm: { concurrency: limitsFor("tinypm", resolved.tinypm.limits).concurrency },
      [targetSystem]: { concurrency: limitsFor(targetSystem, t.limits).concurrency },
    },
    gates: { tinypm: tinypmGate, [targetSystem]: targetGate },
    signal,
    onEvent: (e) => {
      onEvent({
        type: "retry",
        system: e.system,
        attempt: e.attempt,
        delayMs: e.delayMs,
        code: e.code,
        operation: e.operation,
        reason: e.reason,
      });
    },
  });
  return {
    resolved,
    targetSystem,
    tinypm,
    target,
    mappingSpec,
    userMap,
    lanes,
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
  return { ...limitsFor(system, limits), ...serviceShape(system), timeoutMs };
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

/** The gate's events as run events: waits, and retries of requests. */
export function gateEventsTo(onEvent: (e: SyncEvent) => void): (e: GateEvent) => void {
  return (e) => {
    if (e.type === "wait_start") {
      onEvent({
        type: "wait_start",
        system: e.system,
        reason: e.reason,
        until: e.until,
        operation: e.name,
      });
      if (e.reason !== "retry")
        onEvent({
          type: "rate_limited",
          system: e.system,
          waitMs: Math.max(0, e.until - Date.now()),
          operation: e.name,
        });
    } else if (e.type === "wait_end") {
      onEvent({ type: "wait_end", system: e.system, waitedMs: e.waitedMs });
    } else if (e.type === "retry") {
      onEvent({
        type: "retry",
        system: e.system,
        attempt: e.attempt,
        delayMs: e.delayMs,
        code: e.code,
        operation: e.name,
        reason: e.reason,
      });
    }
  };
}

/** Opens the job's state, SQLite file or PostgreSQL (read-only for dry runs and reports: no lock, no writes). */
export function openState(loaded: LoadedConfig, readOnly: boolean): Promise<StateStore> {
  const at = loaded.state;
  return openStateAt(
    at.backend === "sqlite"
      ? { backend: "sqlite", path: at.path }
      : { backend: "postgres", url: at.url },
    { readOnly, waitForLockMs: loaded.config.state.waitForLockMs },
  );
}
