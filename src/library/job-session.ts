import { boardSpecOf } from "../mapping/project.js";
import type { SystemName } from "../core/model.js";
import type { Tracker } from "../core/tracker.js";
import { limitsFor, type LoadedConfig, type ResolvedJob } from "../config/load.js";
import type { GateEvent } from "../core/request-gate.js";
import type { SharedBudget } from "../core/shared-budget.js";
import type { WriteFence } from "../core/write-fence.js";
import { linkedSignals } from "../core/abort-watch.js";
import { openTrackers } from "./job-trackers.js";
import type { Logger } from "../log/logger.js";
import { loadMapping } from "../mapping/load.js";
import type { MappingSpec } from "../mapping/schema.js";
import { loadUserMap, type UserMap } from "../mapping/users.js";
import { createLanes, type Lanes } from "../gate/lanes.js";
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
    /** The run's job lease as a fence: its loss stops the run's writes and requests. */
    fence?: WriteFence | undefined;
  } = {},
): JobSession {
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
  // The job's own `users`, else the config's top-level map.
  const userMap = resolved.usersPath === undefined ? undefined : loadUserMap(resolved.usersPath);
  const targetSystem: SystemName = resolved.target.type;
  const toRun = gateEventsTo(onEvent);
  const tap = options.onGateEvent;
  const trackers = openTrackers(session, resolved, {
    board: boardSpecOf(mappingSpec),
    signal,
    waitForLimits: options.waitForLimits,
    budget: options.budget,
    fence: options.fence,
    onGateEvent:
      tap === undefined
        ? toRun
        : (e: GateEvent): void => {
            toRun(e);
            tap(e);
          },
  });
  const { tinypm, target, tinypmGate, targetGate } = trackers;
  const t = resolved.target;
  const stop = stopSignal(signal, options.fence);
  const lanes = createLanes({
    // Item operations in parallel; the request limits are the gates' alone.
    limits: {
      tinypm: { concurrency: limitsFor("tinypm", resolved.tinypm.limits).concurrency },
      [targetSystem]: { concurrency: limitsFor(targetSystem, t.limits).concurrency },
    },
    gates: { tinypm: tinypmGate, [targetSystem]: targetGate },
    signal: stop.signal,
  });
  return {
    resolved,
    targetSystem,
    tinypm,
    target,
    mappingSpec,
    userMap,
    lanes,
    close: () => {
      stop.release();
      return trackers.close();
    },
  };
}

/**
 * The run stops when it is stopped, or when its lease is lost. Released when the session closes:
 * the stop signal may outlive the run (`serve`'s), and `AbortSignal.any` would leave an entry on
 * it for good on Node 20 (src/core/abort-watch.ts).
 */
function stopSignal(
  signal: AbortSignal | undefined,
  fence: WriteFence | undefined,
): { signal: AbortSignal | undefined; release: () => void } {
  if (fence === undefined || signal === undefined)
    return { signal: signal ?? fence?.signal, release: () => undefined };
  return linkedSignals(signal, fence.signal);
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
    } else if (e.type === "request") {
      onEvent({ type: "request", system: e.system, kind: e.kind });
    } else if (e.type === "wait_end") {
      onEvent({ type: "wait_end", system: e.system, waitedMs: e.waitedMs });
    } else {
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
