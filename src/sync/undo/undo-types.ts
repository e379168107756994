import type { ItemKind, SystemName } from "../../core/model.js";
import type { Tracker } from "../../core/tracker.js";
import type { Lanes } from "../../gate/lanes.js";
import type { CompiledMapping } from "../../mapping/compile.js";
import type { StateData } from "../../state/store.js";

/** One item `undo` removed (or, in a dry run, would remove), or kept. */
export interface UndoItem {
  readonly kind: ItemKind;
  /** Where the run created it: `target` (GitHub, Jira) or `tinypm` (a to-tinypm run). */
  readonly side: "tinypm" | "target";
  readonly tinypmId: string;
  /** GitHub issue number or Jira key. */
  readonly targetId: string;
  readonly title: string;
  readonly url?: string | undefined;
  /** How it went: `deleted`, or `closed` (GitHub: closed as not planned and marked undone). */
  readonly how?: "deleted" | "closed" | undefined;
}

/** An item left where it is, and why. */
export interface UndoKept extends UndoItem {
  readonly reason: string;
}

/**
 * An iteration (GitHub milestone, Jira sprint) or GitHub label the run created on the target,
 * deleted by `undo` (or, in a dry run, to be deleted), or kept.
 */
export interface UndoContainer {
  readonly kind: "iteration" | "label";
  /** Milestone number, sprint id, Project (v2) iteration title, or the label's name. */
  readonly id: string;
  readonly name: string;
}

/** A milestone, sprint or label left where it is, and why (what still uses it). */
export interface UndoContainerKept extends UndoContainer {
  readonly reason: string;
}

/** What `undo` did: the CLI contract's `undo --json` shape. */
export interface UndoReport {
  readonly runId: string;
  readonly job: string;
  readonly dryRun: boolean;
  readonly summary: { readonly removed: number; readonly kept: number };
  readonly removed: readonly UndoItem[];
  readonly kept: readonly UndoKept[];
  /** The milestones, sprints and labels the run created: removed when nothing else uses them. */
  readonly containers: {
    readonly removed: readonly UndoContainer[];
    readonly kept: readonly UndoContainerKept[];
  };
}

/** What `undoRun` is given: the job's trackers and mapping, and its state (held, unless a dry run). */
export interface UndoOptions {
  readonly job: string;
  readonly runId: string;
  readonly dryRun: boolean;
  readonly targetSystem: SystemName;
  readonly tinypm: Tracker;
  readonly target: Tracker;
  readonly mapping: CompiledMapping;
  readonly state: Pick<
    StateData,
    "runs" | "getCheckpoint" | "setCheckpoint" | "getLinkByTinypm" | "deleteLink" | "links"
  >;
  readonly lanes: Lanes;
}
