import type {
  CommentDraft,
  ItemKind,
  SystemName,
  TimeEntryDraft,
  WorkItem,
  WorkItemDraft,
  WorkItemFieldName,
  WorkItemFields,
  JsonValue,
  Marker,
  RichPiece,
} from "../../core/model.js";
import type { PendingWrite } from "../../state/store.js";
import type { FieldConflict, Side } from "./merge.js";
import type { Snapshot } from "./snapshot.js";
import type { LostBlock } from "../../mapping/description.js";

/** What happens to the target's rich content when a description is written (for reports). */
export type RichOutcome = "kept" | "flattened" | "parked" | "target-kept";

/** A description the plan writes (or parks), for the word diff and the rich-content line. */
export interface DescriptionNote {
  readonly toSide: Side;
  /** The visible text before and after, in tinyPM terms. */
  readonly before: string;
  readonly after: string;
  /** For the target side: blocks kept as the target holds them, rewritten, removed, and lost. */
  readonly rich?:
    | {
        readonly outcome: RichOutcome;
        readonly kept: number;
        readonly rewritten: number;
        readonly removed: number;
        readonly lost: readonly LostBlock[];
        /** `parked`: the placeable changes were written, only the units in `lost` were not. */
        readonly written?: boolean | undefined;
      }
    | undefined;
}

/** A link as the planner sees it: both ids and the base of both sides. */
export interface LinkView {
  readonly kind: ItemKind;
  readonly tinypmId: string;
  readonly targetId: string;
  readonly origin: SystemName;
  readonly parentTinypmId?: string | undefined;
  readonly baseTinypm: Snapshot;
  readonly baseTarget: Snapshot;
  /** ISO time of the last sync of this link. */
  readonly syncedAt: string;
  /** Field writes sent whose base update never came (see pending-writes.ts). */
  readonly pendingWrites?: readonly PendingWrite[] | undefined;
}

/** One field written to one side, in tinyPM terms (normalised values, for reports). */
export interface FieldChange {
  readonly field: WorkItemFieldName;
  readonly toSide: Side;
  readonly from: JsonValue | undefined;
  readonly to: JsonValue | undefined;
}

export interface CreateAction {
  readonly type: "create";
  readonly toSide: Side;
  readonly kind: ItemKind;
  readonly title: string;
  /** The item being copied. */
  readonly source: WorkItem;
  /** Its parent on its own side (a task's story), to be translated through the links. */
  readonly parentSourceId?: string | undefined;
  /** The mapped draft (its `parentId` is still the source side's). */
  readonly draft: WorkItemDraft;
  readonly comments: readonly CommentDraft[];
  readonly timeEntries: readonly TimeEntryDraft[];
}

export interface UpdateAction {
  readonly type: "update";
  readonly kind: ItemKind;
  readonly title: string;
  readonly link: LinkView;
  readonly tinypmItem: WorkItem;
  readonly targetItem: WorkItem;
  readonly changes: readonly FieldChange[];
  readonly conflicts: readonly FieldConflict[];
  /** Fields to write to tinyPM (tinyPM values). */
  readonly tinypmSet: Partial<WorkItemFields>;
  /** Fields to write to the target (target values) and its hidden block, when it changes. */
  readonly targetSet: Partial<WorkItemFields>;
  readonly targetMetadata?: Readonly<Record<string, JsonValue>> | undefined;
  /** The marker to write with the hidden block (missing, version 1 or stale digests). */
  readonly targetMarker?: Marker | undefined;
  /** With `targetSet.description` on a target with a rich form: kept blocks and new text. */
  readonly targetRichDescription?: readonly RichPiece[] | undefined;
  /** Every description written or parked: before/after text and the target's rich content. */
  readonly descriptions?: readonly DescriptionNote[] | undefined;
  readonly commentsToTarget: readonly CommentDraft[];
  readonly commentsToTinypm: readonly CommentDraft[];
  readonly timeToTarget: readonly TimeEntryDraft[];
  readonly timeToTinypm: readonly TimeEntryDraft[];
  /**
   * `migrate` of a two-way job: fields a person changed on the target (or that won a conflict
   * there) left as they are and not taken into the base, so that a later `sync` carries them.
   */
  readonly keptOnTarget?: readonly WorkItemFieldName[] | undefined;
  /** The same for time entries (keys) the target gained. */
  readonly timeKeptOnTarget?: readonly string[] | undefined;
}

export interface AdoptAction {
  readonly type: "adopt";
  readonly kind: ItemKind;
  readonly title: string;
  readonly tinypmItem: WorkItem;
  readonly targetItem: WorkItem;
}

export interface DeleteAction {
  readonly type: "delete";
  readonly kind: ItemKind;
  readonly title: string;
  readonly link: LinkView;
  /** The side where the deletion is mirrored. */
  readonly side: Side;
  /** `close` marks the item closed; `delete` removes it; `none` only records the deletion. */
  readonly mode: "close" | "delete" | "none";
  /** For `close` on tinyPM or the target: the fields that mark it closed. */
  readonly set?: Partial<WorkItemFields> | undefined;
  /**
   * For `close` on the target: a comment saying why the issue was closed, posted once (absent
   * when the issue read this run already carries it).
   */
  readonly comment?: string | undefined;
}

export type SkipReason =
  | "unchanged"
  | "echo"
  | "filtered"
  | "direction"
  | "deleted"
  | "parent-missing"
  /** Carries another job's or another tinyPM instance's marker: left alone. */
  | "foreign"
  /** Matched by content to more than one item: parked, never guessed. */
  | "ambiguous"
  /** A person's target item another job sharing the target claimed to import (`claimedBy`). */
  | "claimed"
  /**
   * tinyPM or the target sent it but it cannot be read (`failure`, `unreadableOn`): parked, its
   * link and copy left alone.
   */
  | "unreadable";

export interface SkipAction {
  readonly type: "skip";
  readonly kind: ItemKind;
  readonly title: string;
  readonly tinypmId?: string | undefined;
  readonly targetId?: string | undefined;
  readonly reason: SkipReason;
  /** For `claimed`: the job that imports the item. */
  readonly claimedBy?: string | undefined;
  /** For `unreadable`: the error the item is parked with (what is wrong, where, what to do). */
  readonly failure?: { readonly code: string; readonly message: string } | undefined;
  /** For `unreadable`: the side whose answer could not be read (absent: tinyPM). */
  readonly unreadableOn?: "tinypm" | "target" | undefined;
}

export type PlanAction = CreateAction | UpdateAction | AdoptAction | DeleteAction | SkipAction;

export interface Plan {
  readonly job: string;
  readonly targetSystem: SystemName;
  readonly actions: readonly PlanAction[];
}

/** Whether an update writes anything. */
export function hasWrites(a: UpdateAction): boolean {
  return (
    Object.keys(a.tinypmSet).length > 0 ||
    Object.keys(a.targetSet).length > 0 ||
    a.targetMetadata !== undefined ||
    a.targetMarker !== undefined ||
    a.commentsToTarget.length +
      a.commentsToTinypm.length +
      a.timeToTarget.length +
      a.timeToTinypm.length >
      0
  );
}
