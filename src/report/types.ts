/**
 * The report of a run or a dry run: what every renderer (text, JSON, Markdown, HTML) shows.
 * Self-contained plain data (JSON-safe), versioned: `schemas/report.schema.json` describes it.
 */

export const REPORT_SCHEMA_VERSION = 1;

export type ReportAction =
  "create" | "update" | "adopt" | "delete" | "skip" | "conflict" | "failed";

/** A field value as reports show it (normalised JSON). */
export type ReportValue =
  string | number | boolean | null | readonly ReportValue[] | { readonly [k: string]: ReportValue };

export interface ReportFieldChange {
  readonly field: string;
  /** The side written. */
  readonly toSide: "tinypm" | "target";
  readonly from: ReportValue;
  readonly to: ReportValue;
}

export interface ReportConflict {
  readonly field: string;
  readonly base: ReportValue;
  readonly tinypm: ReportValue;
  readonly target: ReportValue;
  /** `parked` (left for `conflicts resolve`) or the side that won by policy. */
  readonly resolution: "parked" | "tinypm" | "target";
}

/** One run of a word diff: text both have, text added, text removed (line breaks kept). */
export interface ReportDiffPart {
  readonly op: "same" | "added" | "removed";
  readonly text: string;
}

/** What happens to the target's rich content when its description is written. */
export interface ReportRichText {
  /** `kept`: unchanged blocks keep their form; `flattened`: changed blocks lose rich content;
   *  `parked`: nothing written, a conflict; `target-kept`: the target's description wins. */
  readonly outcome: "kept" | "flattened" | "parked" | "target-kept";
  readonly kept: number;
  readonly rewritten: number;
  readonly removed: number;
  /** Changed blocks whose rich content cannot be placed, what of it, and which unit (parked). */
  readonly lost: readonly {
    readonly excerpt: string;
    readonly what: readonly string[];
    readonly where?: string | undefined;
  }[];
  /** `parked` only: every other change was written, only the units in `lost` were kept back. */
  readonly written?: boolean | undefined;
}

/** A description written (or parked): the word diff of its visible text. */
export interface ReportDescription {
  readonly toSide: "tinypm" | "target";
  readonly diff: readonly ReportDiffPart[];
  /** For the target side: whether its rich content is kept. */
  readonly rich?: ReportRichText | undefined;
}

/** One field a create writes: the new item's value, in the written side's terms. */
export interface ReportWrite {
  /** `status`, `labels`, `assignees`, `milestone` (GitHub) or `sprint` (Jira) or `iteration`
   *  (tinyPM), `estimate`, `priority`, `parent` (a task's story, by title). */
  readonly field: string;
  readonly value: ReportValue;
}

/** Links for people: the item's page on each side, where known. */
export interface ReportLinks {
  /** tinyPM's story page (a task links to its story). */
  readonly tinypm?: string | undefined;
  /** The issue on the target (GitHub `html_url`, Jira `<site>/browse/KEY`). */
  readonly target?: string | undefined;
}

export interface ReportItem {
  readonly kind: "story" | "task";
  readonly title: string;
  readonly action: ReportAction;
  /** Which way data flows for creates and updates. */
  readonly direction?: "to-target" | "to-tinypm" | "both" | undefined;
  readonly tinypmId?: string | undefined;
  readonly targetId?: string | undefined;
  /** For tasks: the story's title, to group by story. */
  readonly storyTitle?: string | undefined;
  readonly changes: readonly ReportFieldChange[];
  /** For creates: what the new item gets (its description is in `descriptions`). */
  readonly writes?: readonly ReportWrite[] | undefined;
  /** The item on each side, for creates and updates (in a dry run, the target's only for updates). */
  readonly links?: ReportLinks | undefined;
  readonly conflicts: readonly ReportConflict[];
  /** Every description written or parked, with a word diff and the rich-content line. */
  readonly descriptions?: readonly ReportDescription[] | undefined;
  /**
   * `migrate` of a two-way job: fields a person changed on the target that the run leaves as they
   * are (`kept on GitHub: title`); a later `sync` carries them to tinyPM.
   */
  readonly kept?: readonly string[] | undefined;
  /** Comments and time entries copied (or to copy). */
  readonly comments: number;
  readonly timeEntries: number;
  /** Why nothing is done (skips). */
  readonly reason?: string | undefined;
  readonly error?: { readonly code: string; readonly message: string } | undefined;
}

export interface ReportApiUse {
  readonly reads: number;
  readonly writes: number;
  readonly retries: number;
  readonly rateLimitWaits: number;
  readonly notModified: number;
}

/** What a run read of tinyPM: everything, or which tiers (sections) and why. */
export interface ReportTinypmRead {
  /** Every item was read, so deletions on tinyPM could be inferred. */
  readonly complete: boolean;
  /** Why everything was read, when it was. */
  readonly fullReason?: string | undefined;
  readonly sections: readonly {
    readonly name: string;
    readonly closed: boolean;
    readonly stories: number;
    /** `open`, `full`, `changed`, `new`, or `skipped` (not read this run). */
    readonly reason: string;
  }[];
  /** Items read one by one because the target changed their counterpart. */
  readonly fetched: number;
  /** Whether story and task listings carried complete elements (`complete`, `summary`, `unknown`). */
  readonly listings?: { readonly story: string; readonly task: string } | undefined;
}

export interface ReportUserMatch {
  readonly tinypm: string;
  readonly target: string;
  readonly how: string;
  /** What the rule matched on (`email alice@example.com`, `users.bob: acc-bob`). */
  readonly reason?: string | undefined;
}

export interface ReportAssigneeLoss {
  readonly policy: string;
  readonly items: number;
  /** Unmatched tinyPM user → items of theirs the run sends. */
  readonly byUser: Readonly<Record<string, number>>;
  /** The same, as one sentence. */
  readonly message: string;
}

/** For dry runs: how long the writes would take at the configured limits. */
export interface ReportDurationEstimate {
  readonly durationMs: number;
  /** The limit that holds the writes back most: `GitHub's 80 content writes per minute`. */
  readonly boundBy: string;
  /** `about 13 min, bound by GitHub's 80 content writes per minute`. */
  readonly text: string;
  /** What would make it faster, when something would (GitHub's import API). */
  readonly hint?: string | undefined;
}

/**
 * The deletion guard: linked items the run deletes or closes on each side against the job's
 * `maxDeletes`. Over the limit, a real run stops before its first write (`mass_delete`).
 */
export interface ReportDeleteGuard {
  /** The job's `maxDeletes` as configured (`25`, `"10%"`). */
  readonly maxDeletes: number | string;
  /** The limit per side for this job. */
  readonly limit: number;
  /** The job's live links the percentage is taken of. */
  readonly links: number;
  /** Linked items deleted or closed on each side (where the deletion is mirrored). */
  readonly planned: { readonly tinypm: number; readonly target: number };
  /** The sides over the limit. */
  readonly over: readonly ("tinypm" | "target")[];
  /** Over the limit and let through by `--allow-deletes`. */
  readonly allowed: boolean;
  /** Over the limit: what the stopped run says (the `mass_delete` error), and what to do. */
  readonly message?: string | undefined;
  readonly hint?: string | undefined;
}

export interface Report {
  readonly schemaVersion: typeof REPORT_SCHEMA_VERSION;
  readonly runId: string;
  readonly job: string;
  /** What the run does (or, for a dry run, would do). */
  readonly mode: "migrate" | "sync";
  /** True for `plan` and `--dry-run`: nothing was written anywhere. */
  readonly dryRun: boolean;
  readonly target: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly summary: {
    readonly created: number;
    readonly updated: number;
    readonly unchanged: number;
    readonly conflicts: number;
    readonly failed: number;
    readonly deleted: number;
  };
  /** Calls made, per system. */
  readonly apiCalls: Readonly<Record<string, ReportApiUse>>;
  /** For dry runs: the writes the run would make, per system. */
  readonly estimatedWrites?: Readonly<Record<string, number>> | undefined;
  /** For dry runs: how long those writes would take, when a limit holds them back. */
  readonly estimatedDuration?: ReportDurationEstimate | undefined;
  /** What was read of tinyPM (absent in reports made before tiered reads). */
  readonly tinypmRead?: ReportTinypmRead | undefined;
  /** The deletion guard (absent in reports made before it). */
  readonly deleteGuard?: ReportDeleteGuard | undefined;
  readonly items: readonly ReportItem[];
  readonly users: {
    readonly matches: readonly ReportUserMatch[];
    /** tinyPM users with no counterpart on the target (listed in every report). */
    readonly unmapped: readonly string[];
    /** Items sent to the target with an unmatched assignee, under the job's user policy. */
    readonly assigneeLoss?: ReportAssigneeLoss | undefined;
  };
  /** Rate-limit waits and other notes for people. */
  readonly notes: readonly string[];
}

export type ReportFormat = "text" | "json" | "markdown" | "html";
