import type { SystemName, WorkItem, WorkItemFieldName } from "../../core/model.js";
import type { UnreadableItem } from "../../core/tracker.js";
import type { CompiledMapping } from "../../mapping/compile.js";
import type { ConflictPolicy, Direction, MergeResult, Side } from "./merge.js";
import type { LinkView } from "./plan-types.js";
import type { Snapshot } from "./snapshot.js";

/** A job as the planner sees it, and what one planning pass reads. */
export interface PlanJob {
  readonly name: string;
  readonly direction: Direction;
  readonly conflicts: ConflictPolicy;
  readonly onDelete: "ignore" | "close" | "delete";
  /** The fingerprint of the job's tinyPM base URL (`instanceFingerprint`), for markers. */
  readonly instance?: string | undefined;
  /** The job's tinyPM project id, for markers. */
  readonly project?: string | undefined;
  /** Write missing or damaged hidden blocks back at once, not only on the item's next write. */
  readonly repairMarkers?: boolean | undefined;
  /** Jobs whose marked items this job may import (they keep their own marker). */
  readonly importFrom?: readonly string[] | undefined;
  /** A description edit that cannot be placed without losing rich content. @default "merge" */
  readonly richText?: RichTextPolicy | undefined;
  /**
   * `migrate` of a job that syncs both ways (its direction forced to `to-target`): a target
   * field a person changed is kept there, not absorbed into the base (see `MergeInput`).
   */
  readonly keepTargetEdits?: boolean | undefined;
  /**
   * The most linked items one run may delete or close on either side (a number, or a share of
   * the job's links such as `"10%"`; delete-guard.ts). @default "10%", at least 5
   */
  readonly maxDeletes?: number | string | undefined;
  /** Let this run through even when it deletes or closes more than `maxDeletes` (`--allow-deletes`). */
  readonly allowDeletes?: boolean | undefined;
}

export type RichTextPolicy = "merge" | "overwrite" | "keep-target";

export interface PlanInput {
  readonly job: PlanJob;
  readonly mapping: CompiledMapping;
  readonly targetSystem: SystemName;
  /** The tinyPM items read: all of them (`complete`), or the sections and items a tiered read took. */
  readonly tinypm: {
    readonly items: readonly WorkItem[];
    readonly complete: boolean;
    /** Items tinyPM sent that could not be read: parked, never taken for deleted. */
    readonly unreadable?: readonly UnreadableItem[] | undefined;
    /**
     * `kind:id` of linked items read as their bases hold them and not kept (read.ts `inStep`):
     * present, skipped as unchanged.
     */
    readonly inStep?: ReadonlySet<string> | undefined;
  };
  /** The target items read: all of them (`complete`), or those changed since the checkpoint. */
  readonly target: {
    readonly items: readonly WorkItem[];
    readonly complete: boolean;
    /** `kind:id` of items a partial read found deleted (read by id, not found). */
    readonly gone?: ReadonlySet<string> | undefined;
    /**
     * Linked items the service no longer shows though it shows the rest (GitHub's 404 where a
     * deleted issue is a 410): parked, never taken for deleted.
     */
    readonly unreadable?: readonly UnreadableItem[] | undefined;
  };
  readonly links: readonly LinkView[];
  /** Field decisions taken with `conflicts resolve`, by `kind:tinypmId`. */
  readonly resolved?: ReadonlyMap<string, Partial<Record<WorkItemFieldName, Side>>> | undefined;
  /**
   * Linked pairs (`kind:tinypmId`) with a conflict open in the state: read on both sides, such a
   * pair is planned as an update even when nothing is to be written, so that applying it closes
   * the conflicts that no longer hold (apply-update.ts).
   */
  readonly openConflicts?: ReadonlySet<string> | undefined;
  /**
   * Linked target items (`kind:id`) whose hidden block was missing or damaged: `restored` when
   * the state's copy of the block stands in for it, `unknown` when there is none.
   */
  readonly blockless?: ReadonlyMap<string, "restored" | "unknown"> | undefined;
  /**
   * Target items (by id) whose import another job sharing the target claimed — unmarked, or
   * carrying that job's marker once imported: that job imports them, this one skips them
   * (`claimed`, not `foreign`).
   */
  readonly claimed?: ReadonlyMap<string, string> | undefined;
  /** Items (`tinypm:kind:id`, `target:kind:id`) held back: an ambiguous content match. */
  readonly held?: ReadonlySet<string> | undefined;
  readonly now: Date;
}

/** One linked pair as `planUpdate` sees it: both items, both snapshots and their merge. */
export interface PlanUpdateInput {
  readonly mapping: CompiledMapping;
  readonly job: PlanJob;
  readonly link: LinkView;
  readonly item: WorkItem;
  readonly targetItem: WorkItem;
  readonly t: Snapshot;
  readonly g: Snapshot;
  readonly merge: MergeResult;
  /** Write the hidden block back even if nothing else is written (`--repair-markers`). */
  readonly repairMarker?: boolean | undefined;
  /** The item's block was missing or damaged (its marker is the state's copy). */
  readonly markerMissing?: boolean | undefined;
  /** @default "merge" */
  readonly richText?: RichTextPolicy | undefined;
  /** A `conflicts resolve` decision on the description. */
  readonly resolvedDescription?: Side | undefined;
  /** Whether the job writes to tinyPM (direction not `to-target`). */
  readonly canTinypm: boolean;
}
