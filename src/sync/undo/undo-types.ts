import type { ItemKind } from "../../core/model.js";

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

/** What `undo` did: the CLI contract's `undo --json` shape. */
export interface UndoReport {
  readonly runId: string;
  readonly job: string;
  readonly dryRun: boolean;
  readonly summary: { readonly removed: number; readonly kept: number };
  readonly removed: readonly UndoItem[];
  readonly kept: readonly UndoKept[];
}
