/**
 * The canonical model: what every adapter reads into and writes from, independent of any vendor.
 *
 * One `WorkItem` shape serves every system. Each adapter fills the fields its system holds
 * natively and leaves the others undefined; the mapping engine (`src/mapping/`) translates a
 * tinyPM-flavoured item into a target-flavoured one and back, carrying what a target cannot
 * hold natively in `metadata` (a hidden block the adapter stores next to the item).
 *
 * Conventions:
 * - ids are strings everywhere (`"42"`, `"7"`, `"WID-12"`), whatever the wire uses;
 * - calendar dates are `YYYY-MM-DD`; timestamps are ISO 8601 (`2012-02-04T21:17:47.765`, with a
 *   zone suffix only where the source system gives one);
 * - absent values are `undefined`, never `null`; lists are never undefined (empty instead).
 */

/** A system the tool talks to. `memory` is the in-process tracker used as an executable spec. */
export type SystemName = "tinypm" | "github" | "jira" | "memory";

/** The two kinds of work item: a user story, and a task (sub-issue / sub-task) under a story. */
export type ItemKind = "story" | "task";

/** An identifier as the owning system gives it, always as a string. */
export type ExternalId = string;

/** Addresses one item: tinyPM stories and tasks are separate id spaces, so the kind is needed. */
export interface ItemRef {
  readonly kind: ItemKind;
  readonly id: ExternalId;
}

/** A JSON value, for metadata and checkpoints. */
export type JsonValue =
  string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * A person as one system knows them.
 * - tinyPM: `id` = user id, `login`, `name` (display name), `email`;
 * - GitHub: `id` = login, `login` = login;
 * - Jira: `id` = accountId, `name` = display name (emails are usually hidden).
 * A reference may carry only a `name` (tinyPM comment authors are display names).
 */
export interface UserRef {
  readonly id?: string | undefined;
  readonly login?: string | undefined;
  readonly name?: string | undefined;
  readonly email?: string | undefined;
  /** `false` for an account that can no longer sign in (tinyPM inactive user); set by `listUsers` only. */
  readonly active?: boolean | undefined;
}

/** An iteration (tinyPM), milestone (GitHub) or sprint (Jira). */
export interface Iteration {
  readonly id: ExternalId;
  readonly name: string;
  readonly goal?: string | undefined;
  /** `YYYY-MM-DD`. */
  readonly startDate?: string | undefined;
  /** Length in days (tinyPM `duration`). */
  readonly durationDays?: number | undefined;
  /** `YYYY-MM-DD`: start + duration on tinyPM, due date on GitHub, end date on Jira. */
  readonly endDate?: string | undefined;
  readonly plannedVelocity?: number | undefined;
  readonly position?: number | undefined;
  readonly state?: "future" | "active" | "closed" | undefined;
}

/** What a work item says about its iteration: the name is the key across systems. */
export interface IterationRef {
  readonly id?: ExternalId | undefined;
  readonly name: string;
}

/** A comment on a story or task. tinyPM comments have no id and no edit: they are append-only. */
export interface Comment {
  readonly id?: ExternalId | undefined;
  readonly author: UserRef;
  /** ISO 8601 timestamp. */
  readonly createdAt: string;
  readonly body: string;
}

/** Time booked on a task (tinyPM timesheet activity, Jira worklog). */
export interface TimeEntry {
  readonly id?: ExternalId | undefined;
  readonly user: UserRef;
  /** `YYYY-MM-DD`. */
  readonly date: string;
  /** Time spent, in hours (decimal). */
  readonly hours: number;
  /** Time left after this entry, in hours, where the system records it (tinyPM). */
  readonly remainingHours?: number | undefined;
  readonly comment?: string | undefined;
}

/**
 * The fields a sync compares and writes. Every field is optional in the sense that a system may
 * not hold it; lists are always present.
 */
export interface WorkItemFields {
  /** tinyPM `name`, GitHub/Jira title or summary. */
  readonly title: string;
  /** tinyPM `description` (plain text), GitHub body (Markdown, marker removed), Jira (Markdown from ADF). */
  readonly description?: string | undefined;
  /**
   * tinyPM story: `acceptanceStatus` (PENDING, ACCEPTED, REJECTED); tinyPM task: the project's
   * task status name; GitHub: `open`, `closed:completed`, `closed:not_planned`, `closed:duplicate`;
   * Jira: the workflow status name.
   */
  readonly status: string;
  /** tinyPM: MUST_HAVE, SHOULD_HAVE, COULD_HAVE, WONT_HAVE; Jira: priority name. */
  readonly priority?: string | undefined;
  /** tinyPM `estimatedEffort`, Jira story points. */
  readonly estimate?: number | undefined;
  readonly iteration?: IterationRef | undefined;
  /** tinyPM story owner (one) or task assignedUsers; GitHub assignees; Jira assignee (one). */
  readonly assignees: readonly UserRef[];
  /** tinyPM `acceptingUser`. */
  readonly acceptingUser?: UserRef | undefined;
  /** tinyPM tags; GitHub and Jira labels. */
  readonly labels: readonly string[];
  /** tinyPM colour: WHITE, YELLOW, ORANGE, RED, GREEN, BLUE. */
  readonly color?: string | undefined;
  /** tinyPM backlog rank. */
  readonly position?: number | undefined;
  /** tinyPM task `startedAt` (ISO timestamp). */
  readonly startedAt?: string | undefined;
  /** tinyPM task `completedAt` (ISO timestamp). */
  readonly completedAt?: string | undefined;
}

/**
 * Where a remote item came from: written as a hidden marker on every item the tool creates and
 * on every target-born item it links. Version 1 held only the first four fields; version 2 adds
 * which tinyPM (a fingerprint, never the URL), which project and both ids, so that another job's
 * or another instance's item is never taken for this job's, and links can be rebuilt from the
 * target alone. Never holds personal data (emails, names).
 */
export interface Marker {
  /** The job that created (or linked) the item. */
  readonly job: string;
  /** The system the item was copied from. */
  readonly origin: SystemName;
  /** The item's kind and id in the origin system. */
  readonly originKind: ItemKind;
  readonly originId: ExternalId;
  /** v2: a fingerprint of the tinyPM base URL (see `instanceFingerprint`). */
  readonly instance?: string | undefined;
  /** v2: the tinyPM project id. */
  readonly project?: string | undefined;
  /** v2: the tinyPM item's id (for a target-born item, the one created from it). */
  readonly tinypmId?: ExternalId | undefined;
  /**
   * v2: short digests of the synced fields' values (tinyPM terms) as of the tool's last write,
   * so that a lost state's bases can be rebuilt field by field. Digests, never values.
   */
  readonly base?: Readonly<Record<string, string>> | undefined;
  /**
   * v2: digests of what the target held (tinyPM terms) as of the tool's last write, only for the
   * fields where that differs from `base` — a value the target chose itself (Jira's default
   * priority) or normalised — so that a rebuilt link's target base is the one the state held.
   * Markers without it are read as "the target held `base`".
   */
  readonly target?: Readonly<Record<string, string>> | undefined;
  /**
   * The id of the run whose creation `undo` took back, on an item it could only close (GitHub):
   * the item is no one's any more, never linked, adopted or found by marker again.
   */
  readonly undone?: string | undefined;
}

/**
 * One block of a description in its system's own rich form (Jira: a top-level ADF node), so that
 * a tinyPM edit can rewrite only the blocks it changed.
 */
export interface RichBlock {
  /** The block as description text (the Markdown the adapter reads it as). */
  readonly text: string;
  /** The block as the system holds it: opaque to everything but its adapter. */
  readonly rich: JsonValue;
  /**
   * What rewriting the block from its text would lose, for people (`panel (warning)`, `mention
   * @Alice`, `text colour`); empty when the text gives the same block back.
   */
  readonly lost: readonly string[];
  /**
   * A list, list item, table or table row whose own parts are units too (list items, nested
   * lists, table rows, cells): an edit of one part rewrites that part only. The block's text is
   * its parts' texts joined by `parts.separator`.
   */
  readonly parts?: RichParts | undefined;
}

/**
 * The parts of a block. `lines`: list items and nested lists, one or more lines each; `rows`:
 * table rows, compared with the cells' padding ignored; `cells`: a row's cells, by position.
 */
export interface RichParts {
  readonly kind: "lines" | "rows" | "cells";
  readonly separator: string;
  readonly blocks: readonly RichBlock[];
  /**
   * A regular expression (source) that new text must match in full to sit among the parts (an
   * item at the list's depth, a row with the table's number of cells); text that does not is
   * written by rewriting the whole block.
   */
  readonly accepts: string;
}

/** A description as blocks: their texts joined by `separator` are the item's `description`. */
export interface RichDescription {
  readonly separator: string;
  readonly blocks: readonly RichBlock[];
}

/**
 * A piece of a description to write: a block kept as read, new text the adapter converts, or a
 * block kept with its parts composed the same way (`text`: the whole block's new text).
 */
export type RichPiece =
  | { readonly keep: JsonValue }
  | { readonly text: string }
  | { readonly within: JsonValue; readonly parts: readonly RichPiece[]; readonly text: string };

/** A story or task as read from a system. */
export interface WorkItem extends WorkItemFields {
  readonly system: SystemName;
  readonly kind: ItemKind;
  readonly id: ExternalId;
  /** A task's story. */
  readonly parentId?: ExternalId | undefined;
  readonly comments: readonly Comment[];
  readonly timeEntries: readonly TimeEntry[];
  /** Values the system cannot hold natively, kept in the item's hidden block by the adapter. */
  readonly metadata: Readonly<Record<string, JsonValue>>;
  /** The tool's origin marker, when the item carries one. */
  readonly marker?: Marker | undefined;
  /** ISO timestamp of the last change, where the system records one (not tinyPM). */
  readonly updatedAt?: string | undefined;
  /** A link for people (reports). */
  readonly url?: string | undefined;
  /** The description in the system's rich form, where the adapter keeps one (Jira). */
  readonly richDescription?: RichDescription | undefined;
}

/** What `Tracker.create` takes: the fields, the parent, the hidden block and the marker. */
export interface WorkItemDraft extends WorkItemFields {
  readonly kind: ItemKind;
  readonly parentId?: ExternalId | undefined;
  readonly metadata?: Readonly<Record<string, JsonValue>> | undefined;
  readonly marker?: Marker | undefined;
}

/**
 * What `Tracker.update` takes: only the fields to change. `base` is the item as the caller
 * planned against; an adapter that must write whole documents (tinyPM) re-reads the item and
 * throws `ConflictError` when it no longer matches `base` on the fields being written.
 */
export interface WorkItemPatch {
  readonly set: Partial<WorkItemFields>;
  /**
   * With `set.description`, on a system with a rich form: the description as kept blocks and new
   * text, so that blocks a tinyPM edit did not touch keep their rich form.
   */
  readonly richDescription?: readonly RichPiece[] | undefined;
  readonly metadata?: Readonly<Record<string, JsonValue>> | undefined;
  /** The marker to (re)write with the hidden block (targets); the item's own when undefined. */
  readonly marker?: Marker | undefined;
  readonly base?: WorkItem | undefined;
}

/** A new comment. */
export interface CommentDraft {
  readonly author: UserRef;
  readonly createdAt: string;
  readonly body: string;
  readonly marker?: Marker | undefined;
}

/** A new time entry. */
export type TimeEntryDraft = Omit<TimeEntry, "id">;

/** A new iteration, milestone or sprint. */
export type IterationDraft = Omit<Iteration, "id">;

/** The names of the comparable fields, in a stable order (reports, hashing, mapping coverage). */
export const WORK_ITEM_FIELD_NAMES = [
  "title",
  "description",
  "status",
  "priority",
  "estimate",
  "iteration",
  "assignees",
  "acceptingUser",
  "labels",
  "color",
  "position",
  "startedAt",
  "completedAt",
] as const satisfies readonly (keyof WorkItemFields)[];

export type WorkItemFieldName = (typeof WORK_ITEM_FIELD_NAMES)[number];
