import type { ItemKind, Iteration, SystemName } from "../core/model.js";
import type { Tracker } from "../core/tracker.js";
import type { CompiledMapping } from "../mapping/compile.js";
import type { Lanes } from "../gate/lanes.js";
import type { StateStore } from "../state/store.js";
import type { ConfirmGroup } from "./apply/confirm-group.js";
import type { RunMemory } from "./apply/run-memory.js";
import type { SyncEvent } from "./events.js";
import type { PlanJob } from "./plan/plan-input.js";

/** What the apply steps share during one run. */
export interface EngineContext {
  readonly job: PlanJob;
  readonly runId: string;
  readonly targetSystem: SystemName;
  /** The scope of the job's import claims (run-options.ts `targetLocation`). */
  readonly targetLocation: string;
  readonly tinypm: Tracker;
  readonly target: Tracker;
  readonly mapping: CompiledMapping;
  readonly state: StateStore;
  readonly lanes: Lanes;
  readonly emit: (event: SyncEvent) => void;
  readonly now: () => Date;
  /** tinyPM iterations by name (tinyPM cannot create iterations: items are matched by name). */
  readonly tinypmIterations: ReadonlyMap<string, Iteration>;
  /**
   * The highest tinyPM id of each kind this run read (tinypm-anchor.ts): a tinyPM create's copy
   * gets a higher one. Absent: no floor, every unlinked item is a candidate after a crash.
   */
  readonly tinypmFloors?: ReadonlyMap<ItemKind, number> | undefined;
  /** What the run's apply step learns as it goes, for its later items (one per run). */
  readonly memory: RunMemory;
  /** Where the apply step gathers the confirmations of target creates (group commit). */
  readonly confirms?: ConfirmGroup | undefined;
}

/**
 * Runs one remote call through a system's lane, once: its requests are paced and retried by the
 * request gate; a create that must not be sent twice goes through `ensure` (apply/ensure.ts).
 */
export function call<T>(
  ctx: Pick<EngineContext, "lanes" | "targetSystem">,
  side: "tinypm" | "target",
  op: { name: string; kind: "read" | "write"; run: () => Promise<T> },
): Promise<T> {
  const system = side === "tinypm" ? "tinypm" : ctx.targetSystem;
  return ctx.lanes.run(system, { name: op.name, kind: op.kind, run: () => op.run() });
}
