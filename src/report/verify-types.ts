/**
 * The report of `verify`: every linked pair compared field by field (in tinyPM terms, through the
 * mapping), and the items linked on neither side. Plain JSON-safe data, rendered as text, JSON,
 * Markdown or HTML (verify-render.ts).
 */
import type { ReportValue } from "./types.js";

/** One field of a linked pair that differs: the value on each side, in tinyPM terms. */
export interface VerifyField {
  /** The field as the mapping names it (`title`, `status`, …), or `comments`, `timeEntries`, `exists`. */
  readonly field: string;
  readonly tinypm: ReportValue;
  readonly target: ReportValue;
}

/** A linked pair whose sides differ. */
export interface VerifyDifference {
  readonly kind: "story" | "task";
  readonly tinypmId: string;
  readonly targetId: string;
  readonly title: string;
  readonly url?: string | undefined;
  readonly fields: readonly VerifyField[];
}

/** An item with no link on the other side. */
export interface VerifyUnlinked {
  readonly kind: "story" | "task";
  readonly id: string;
  readonly title: string;
  readonly url?: string | undefined;
}

/** What the comparison cost: requests per system, and per item read. */
export interface VerifyCost {
  /** Items read on both sides together. */
  readonly items: number;
  /** Requests sent per system (all reads: verify writes nothing). */
  readonly requests: Readonly<Record<string, number>>;
  /** All requests divided by the items read (0 when nothing was read). */
  readonly perItem: number;
}

export interface VerifyReport {
  readonly job: string;
  /** `github` or `jira`. */
  readonly target: string;
  readonly checkedAt: string;
  readonly summary: {
    /** Linked pairs compared (links kept for an item deleted on one side are not pairs). */
    readonly pairs: number;
    readonly equal: number;
    readonly different: number;
    /** Items on either side with no link. */
    readonly unlinked: number;
  };
  readonly differences: readonly VerifyDifference[];
  readonly unlinked: {
    readonly tinypm: readonly VerifyUnlinked[];
    readonly target: readonly VerifyUnlinked[];
  };
  readonly cost: VerifyCost;
}

/** Whether both sides hold the same, pair by pair, and nothing is left unlinked. */
export function verifyClean(report: VerifyReport): boolean {
  return report.summary.different === 0 && report.summary.unlinked === 0;
}
