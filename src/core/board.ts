/**
 * A GitHub Project (v2) board as a sync target's fields, in target terms: the mapping's
 * `project:` section compiled (`src/mapping/project.ts`) and handed to the GitHub adapter, which
 * reads and writes an item's `status`, `iteration`, `estimate` and `priority` on the board.
 */

/** A single-select option colour: GitHub has these eight only. */
export type BoardColor =
  "GRAY" | "BLUE" | "GREEN" | "YELLOW" | "ORANGE" | "RED" | "PINK" | "PURPLE";

export const BOARD_COLORS: readonly BoardColor[] = [
  "GRAY",
  "BLUE",
  "GREEN",
  "YELLOW",
  "ORANGE",
  "RED",
  "PINK",
  "PURPLE",
];

export interface BoardOption {
  readonly name: string;
  readonly color: BoardColor;
}

export interface BoardSpec {
  /** The project's field names. */
  readonly fields: {
    readonly status: string;
    readonly iteration: string;
    readonly estimate: string;
    readonly priority: string;
  };
  /** The Status options the value tables use (created when missing). */
  readonly statusOptions: readonly BoardOption[];
  readonly priorityOptions: readonly BoardOption[];
  /** Status options that close the issue, with GitHub's close reason; every other one opens it. */
  readonly closed: Readonly<Record<string, "completed" | "not_planned">>;
  /** The Status an item without a board value reads as while its issue is open. */
  readonly openStatus: string;
  /**
   * The iteration also as the milestone (created like a milestone job's): the board's
   * value is what is read back; the milestone follows each write of it.
   */
  readonly milestones?: boolean | undefined;
}
