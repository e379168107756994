import type { SystemName } from "../core/model.js";
import type { LeaseFence } from "../core/write-fence.js";
import type { Tracker } from "../core/tracker.js";
import type { MappingSpec } from "../mapping/schema.js";
import type { UnmappedPolicy, UserMap } from "../mapping/users.js";
import type { Lanes } from "../gate/lanes.js";
import type { StateStore } from "../state/store.js";
import type { SyncEvent } from "./events.js";
import type { PlanJob } from "./plan/plan-input.js";
import type { SavedPlanRun } from "./saved-plan/saved-plan-run.js";

/** What one run of a job is given (by the CLI, the service or a test). */
export type RunMode = "migrate" | "sync";

export interface EngineOptions {
  readonly mode: RunMode;
  /** Plan only: read both sides and report what the run would do; write nothing anywhere. */
  readonly dryRun?: boolean | undefined;
  readonly job: PlanJob;
  readonly targetSystem: SystemName;
  /**
   * Where the target lives (`github:<api host>/<owner>/<repo>`, `jira:<site>/<project key>`): the
   * scope of import claims, so that two jobs sharing a repository or Jira project never both
   * import a person's issue (`targetLocation` in src/library/target-location.ts). Jobs on one state
   * whose target has no location given share `<system>:default`.
   */
  readonly targetLocation?: string | undefined;
  readonly tinypm: Tracker;
  readonly target: Tracker;
  readonly mappingSpec: MappingSpec;
  readonly userMap?: UserMap | undefined;
  readonly unmappedUsers?: UnmappedPolicy | undefined;
  readonly state: StateStore;
  /**
   * How long to wait for another process that holds the job's lease (a PostgreSQL state shared
   * by several workers), in ms, before failing with `state_locked`. @default 0
   */
  readonly leaseWaitMs?: number | undefined;
  /**
   * The fence the run's request gates were opened with: the engine ties it to the job's lease,
   * so that once the lease is lost no further write of the run reaches any system.
   */
  readonly fence?: LeaseFence | undefined;
  /**
   * The group commit of the confirmations of target creates (see apply/confirm-group.ts): how
   * many per commit (default 50) and the longest one waits (default 1000 ms).
   */
  readonly confirmGroup?:
    { readonly size?: number | undefined; readonly maxWaitMs?: number | undefined } | undefined;
  readonly lanes: Lanes;
  readonly emit?: ((event: SyncEvent) => void) | undefined;
  readonly now?: (() => Date) | undefined;
  /** Syncs: read closed tinyPM iterations in full every this many runs. @default 12 */
  readonly fullScanEvery?: number | undefined;
  /** Syncs: read all of tinyPM and the whole target this run (`sync --full`). */
  readonly fullScan?: boolean | undefined;
  /**
   * Syncs: limit the run to these target items (ids: GitHub issue numbers, Jira keys) and their
   * tinyPM counterparts, each read by id (a webhook's run; `targeted-read.ts`). The target's
   * checkpoint and tinyPM's tiers stay where they were: the next whole run reads what changed.
   */
  readonly targetItems?: readonly string[] | undefined;
  /**
   * `apply`: carry out only the saved plan's actions, checked against what was read (they must
   * hold as saved, else `plan_stale` before any write to a system); the checkpoints stay where
   * they were, so the next run reads whatever the plan left out.
   */
  readonly savedPlan?: SavedPlanRun | undefined;
  /**
   * What the caller reads of the run's report. `full`: every item (a report rendered from the
   * plan). `summary`: the summary, the counts, the events and the API use alone (the CLI's
   * `--json` without `--out`): a real run then lets go of each action of its plan once applied,
   * and with it the items it carried, so that a migration holds only what it has still to
   * write; the report's `plan` comes back without actions (`planKept: false`). A dry run keeps
   * its plan either way. @default "full"
   */
  readonly report?: "full" | "summary" | undefined;
}
