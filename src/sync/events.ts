import type { ItemKind } from "../core/model.js";
import type { WaitReason } from "../core/request-gate.js";
import type { FieldConflict } from "./plan/merge.js";
import type { FieldChange, SkipReason } from "./plan/plan-types.js";

/** Per-item events of a run, rendered by the CLI and collected into reports (never printed here). */
export type SyncEvent =
  | {
      readonly type: "created";
      readonly kind: ItemKind;
      readonly side: "tinypm" | "target";
      readonly title: string;
      readonly id: string;
      readonly sourceId: string;
      /** The new item's page, where its system gives one (reports link to it). */
      readonly url?: string | undefined;
      /** Made by an interrupted run, found and linked by this one (its create is this run's). */
      readonly settled?: true | undefined;
    }
  | {
      readonly type: "adopted";
      readonly kind: ItemKind;
      readonly title: string;
      readonly tinypmId: string;
      readonly targetId: string;
    }
  | {
      readonly type: "updated";
      readonly kind: ItemKind;
      readonly title: string;
      readonly tinypmId: string;
      readonly targetId: string;
      readonly changes: readonly FieldChange[];
    }
  | {
      readonly type: "skipped";
      readonly kind: ItemKind;
      readonly title: string;
      readonly reason: SkipReason;
      /** For `claimed`: the job sharing the target that imports the item. */
      readonly claimedBy?: string | undefined;
      readonly targetId?: string | undefined;
    }
  | {
      readonly type: "conflict";
      readonly kind: ItemKind;
      readonly title: string;
      readonly tinypmId: string;
      readonly targetId: string;
      readonly conflicts: readonly FieldConflict[];
    }
  | {
      readonly type: "deleted";
      readonly kind: ItemKind;
      readonly title: string;
      readonly side: "tinypm" | "target";
      readonly mode: string;
    }
  | {
      readonly type: "failed";
      readonly kind: ItemKind;
      readonly title: string;
      /** The item's ids (a create has only its source's): reports join failures by them. */
      readonly tinypmId?: string | undefined;
      readonly targetId?: string | undefined;
      readonly code: string;
      readonly message: string;
    }
  | {
      readonly type: "retry";
      readonly system: string;
      readonly attempt: number;
      readonly delayMs: number;
      readonly code: string;
      /** The request retried (`GET story 12`, `create issue`…) and why it failed. */
      readonly operation?: string | undefined;
      readonly reason?: string | undefined;
    }
  | {
      /**
       * The request gate holds `system`'s requests back until `until` (epoch ms): a full limit
       * window, the service's own `Retry-After`/reset, or a retry's backoff. Always followed by
       * `wait_end`. Progress displays show it; the ETA counts it.
       */
      readonly type: "wait_start";
      readonly system: string;
      readonly reason: WaitReason;
      readonly until: number;
      /** The request that met the wait. */
      readonly operation: string;
    }
  | { readonly type: "wait_end"; readonly system: string; readonly waitedMs: number }
  | { readonly type: "checkpoint_saved"; readonly system: string }
  | {
      /**
       * A finished migration stored no checkpoint for its target because the listing that sets
       * it failed, or found an item the migration neither wrote nor read as it stands (`reason`,
       * naming it): the first `sync` reads the whole target.
       */
      readonly type: "checkpoint_skipped";
      readonly system: string;
      readonly reason: string;
    }
  /** What the run does now, in words (`reading tinyPM`, `creating stories`…), for progress. */
  | { readonly type: "phase"; readonly phase: string }
  | {
      /** Before any write: items sent to the target with an assignee who has no account there. */
      readonly type: "assignees_unmapped";
      readonly items: number;
      readonly policy: "skip" | "placeholder" | "fail";
      readonly message: string;
    }
  | {
      /**
       * A target create's block written once more: the target holds another value than the one
       * the block said it would (a default or normalisation the run could not foresee).
       */
      readonly type: "marker_rewritten";
      readonly kind: ItemKind;
      readonly id: string;
      readonly fields: readonly string[];
    }
  | {
      /** An iteration (milestone, sprint) or label the run's target tracker created. */
      readonly type: "container_created";
      readonly kind: "iteration" | "label";
      readonly id: string;
      readonly name: string;
    }
  | {
      /** A request answered (or failed) on `system`: progress displays count them per phase. */
      readonly type: "request";
      readonly system: string;
      readonly kind: "read" | "write" | "search";
    }
  | {
      /**
       * Items read so far by the running read (read-count.ts), for progress displays: a read
       * phase shows what it counts before any item is planned.
       */
      readonly type: "read_progress";
      readonly system: string;
      readonly items: number;
      /** Stories among them, and how many the read will find, where its listing says (tinyPM). */
      readonly stories?: number | undefined;
      readonly storiesTotal?: number | undefined;
      /** The read's last count: it is over. */
      readonly final?: boolean | undefined;
    }
  | {
      readonly type: "progress";
      readonly phase: string;
      readonly done: number;
      readonly total: number;
    }
  | {
      /**
       * Before apply: the writes the plan will make on each system (report-data.ts
       * `estimateRunWrites`), so that a progress display can foresee the rate limits' windows.
       */
      readonly type: "write_forecast";
      readonly writes: Readonly<Record<string, number>>;
    };

/** The counts of architecture.md's `--json` summary. */
export interface RunSummary {
  created: number;
  updated: number;
  unchanged: number;
  conflicts: number;
  failed: number;
  deleted: number;
}

export function emptySummary(): RunSummary {
  return { created: 0, updated: 0, unchanged: 0, conflicts: 0, failed: 0, deleted: 0 };
}

/** Per-system API use, as `--json` reports it. */
export interface ApiUse {
  reads: number;
  writes: number;
  retries: number;
  rateLimitWaits: number;
  /** Conditional reads answered 304. */
  notModified: number;
}
