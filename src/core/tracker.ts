import type {
  Comment,
  CommentDraft,
  ExternalId,
  ItemKind,
  ItemRef,
  Iteration,
  IterationDraft,
  Marker,
  SystemName,
  TimeEntry,
  TimeEntryDraft,
  UserRef,
  WorkItem,
  WorkItemDraft,
  WorkItemFields,
  WorkItemPatch,
} from "./model.js";
import type { SyncError } from "./errors.js";

/** A create as a tracker prices it: the item's kind and the status its draft goes to. */
export interface CreateOutline {
  readonly kind: ItemKind;
  readonly status: string;
}

/** Per-call options every adapter method accepts. */
export interface CallOptions {
  readonly signal?: AbortSignal | undefined;
  /**
   * Reads of many items: an item whose own document cannot be read (malformed or hostile XML, a
   * payload that fails validation) is handed here and left out, and the read goes on. Without it,
   * the read fails with the item's error. A listing that cannot be read still fails the read.
   */
  readonly onUnreadable?: ((item: UnreadableItem) => void) | undefined;
}

/** An item whose own document could not be read: parked for a person, never taken for deleted. */
export interface UnreadableItem {
  readonly kind: ItemKind;
  readonly id: ExternalId;
  /** A task's story, when known. */
  readonly parentId?: ExternalId | undefined;
  /** Its title as a listing named it, when one did. */
  readonly title?: string | undefined;
  /** What was wrong (a `payload_invalid` error: what, where). */
  readonly error: SyncError;
}

/** What `list` returns. With no `kind`, stories and tasks both; with `parentId`, that story's tasks. */
export interface ListQuery {
  readonly kind?: ItemKind | undefined;
  readonly parentId?: ExternalId | undefined;
}

/**
 * Opaque to the engine, owned and validated by the adapter's `feed.ts`. Flat on purpose, so that
 * the state store can keep it as one small JSON record per job and system.
 */
export type Checkpoint = Readonly<Record<string, string | number | boolean>>;

export type Change =
  | { readonly kind: "upsert"; readonly item: WorkItem }
  | { readonly kind: "delete"; readonly ref: ItemRef };

/** One page of a change feed and the checkpoint that is safe to store once it is applied. */
export interface ChangePage {
  readonly changes: readonly Change[];
  readonly checkpoint: Checkpoint;
  /** True when the feed scanned everything (full scans): deletions may then be inferred. */
  readonly complete: boolean;
}

/** A part of a project for tiered reads: one closed iteration, or everything else (`open`). */
export interface ScanSection {
  /** `open`, or `closed:<iteration id>`. */
  readonly key: string;
  /** The iteration's name (`open`: a description). */
  readonly name: string;
  /** A closed iteration: read in full only now and then. The open section is read every run. */
  readonly closed: boolean;
  /** A digest of the section's story list (ids, names and positions, in listing order). */
  readonly signature: string;
  readonly stories: number;
}

/** How a read found the listings of one kind: complete elements, summaries, or not probed. */
export type ListingForm = "complete" | "summary" | "unknown";

/** One tiered read of a project: its sections (from listings only), then what is needed. */
export interface TieredScan {
  readonly sections: readonly ScanSection[];
  /** Every story of these sections, each followed by its tasks. */
  read(keys: readonly string[], opts?: CallOptions): AsyncIterable<WorkItem>;
  /**
   * Items read one by one (the counterparts of items changed on the other side); a task's
   * `parentId`, when known, spares a search for its story. Missing items are left out.
   */
  readItems(
    refs: readonly (ItemRef & { readonly parentId?: ExternalId | undefined })[],
    opts?: CallOptions,
  ): Promise<readonly WorkItem[]>;
  /** How the listings of stories and tasks were found during this read. */
  listings(): Readonly<Record<"story" | "task", ListingForm>>;
}

export interface TrackerCapabilities {
  readonly comments: boolean;
  readonly timeEntries: boolean;
  readonly iterations: boolean;
  readonly labels: boolean;
  readonly delete: "hard" | "soft" | "unsupported";
  readonly changeFeed: "cursor" | "updated-since" | "full-scan";
  /** Whether created items carry a marker that `findByMarker` can look up. */
  readonly markers: boolean;
  /** The most items one `createMany` call takes (1 when there is no bulk create). */
  readonly bulkCreate: number;
}

/**
 * An iteration (GitHub milestone, Jira sprint) or a label (GitHub) a tracker made itself, as
 * `undo` takes it back: `id` is the milestone number, the sprint id or the label's name.
 */
export interface TrackerContainer {
  readonly kind: "iteration" | "label";
  readonly id: string;
  readonly name: string;
}

/** An item that uses an iteration or label, and the run whose `undo` closed it, if one did. */
export interface ContainerUser {
  readonly id: ExternalId;
  readonly undone?: string | undefined;
}

/**
 * The one interface every adapter implements (`index.ts` returns `{…} satisfies Tracker`).
 * Adapters throw the typed errors of `errors.ts`, never vendor errors.
 */
export interface Tracker {
  readonly system: SystemName;
  readonly capabilities: TrackerCapabilities;

  /** Every matching item, paging internally. Items carry their comments and time entries. */
  list(query: ListQuery, opts?: CallOptions): AsyncIterable<WorkItem>;
  /**
   * Not found is `undefined`, not an error. A task's `parentId`, when known, spares a tracker
   * that files tasks under stories (tinyPM) a search for its story.
   */
  get(
    ref: ItemRef & { readonly parentId?: ExternalId | undefined },
    opts?: CallOptions,
  ): Promise<WorkItem | undefined>;
  create(draft: WorkItemDraft, opts?: CallOptions): Promise<WorkItem>;
  /**
   * Creates several items in as few calls as the system allows (Jira bulk create). The result has
   * one entry per draft, in order: the item, or the error that item met.
   */
  createMany(
    drafts: readonly WorkItemDraft[],
    opts?: CallOptions,
  ): Promise<readonly (WorkItem | Error)[]>;
  /**
   * The values the system gives an item of `kind` for the fields its create leaves out (Jira: the
   * default priority of the project's priority scheme, from create metadata), in the adapter's
   * terms. Absent when a created item holds what it was sent.
   */
  createDefaults?(kind: ItemKind, opts?: CallOptions): Promise<Partial<WorkItemFields>>;
  /**
   * Now on the service's clock, for comparisons with the change times it stamps (the host's clock
   * may be off). Undefined before the service answered with its time, or when it tells none.
   */
  serverNow?(): Date | undefined;
  /** Missing → `NotFoundError`; changed since `patch.base` → `ConflictError`. */
  update(ref: ItemRef, patch: WorkItemPatch, opts?: CallOptions): Promise<WorkItem>;
  /** Per `capabilities.delete`: a hard delete, or closing/marking the item. */
  delete(ref: ItemRef, opts?: CallOptions): Promise<void>;
  /** Changes since a checkpoint (all items when `from` is undefined). */
  changes(from: Checkpoint | undefined, opts?: CallOptions): AsyncIterable<ChangePage>;
  /**
   * After a migration (a full read, then this tracker's writes): the change feed's checkpoint
   * just past them, when the system shows that nobody else changed anything since the read, so
   * that the first `sync` reads only what changed after the migration, like any later one.
   * `undefined` when that cannot be told: the first sync then reads everything, and `onNone`
   * (where the adapter can say) is told why, naming the item. Absent where the adapter cannot
   * tell.
   */
  checkpointAfterWrites?(
    opts?: CallOptions & { readonly onNone?: ((why: string) => void) | undefined },
  ): Promise<Checkpoint | undefined>;
  /**
   * Starts a tiered read (systems without a change feed, i.e. tinyPM): the engine reads the open
   * section every run and closed sections in full only now and then.
   */
  startTieredScan?(opts?: CallOptions): Promise<TieredScan>;

  /**
   * The item created by `job` from `origin`, found by its marker (after an interrupted create).
   * A marker without `instance` matches the job's item whatever tinyPM instance it names.
   */
  findByMarker(marker: Marker, opts?: CallOptions): Promise<WorkItem | undefined>;
  /**
   * Every status the item has held, oldest first: the one it was created with, then each change,
   * its current status last, in the adapter's terms (GitHub: `open`, `closed:<reason>`; Jira: the
   * status name). Absent where the system keeps no such history. Read only after an interrupted
   * create, to tell a step the create had not made yet from a person's change after it.
   */
  statusHistory?(ref: ItemRef, opts?: CallOptions): Promise<readonly string[]>;
  /**
   * Whether the item's status left `status` (in the adapter's terms, as `statusHistory`) after
   * `since` (ISO), whatever it is now: a close and a reopen since count. Changes that arrive at
   * `status` never do — the tool's own writes that made it — so no clock skew between the
   * system and this host can pass them off as a person's. Absent where the system keeps no such
   * history. Read before a run writes a status over one that still equals the link's base
   * (src/sync/read/status-touched.ts), with the status the item holds now.
   */
  statusLeftSince?(
    ref: ItemRef,
    status: string,
    since: string,
    opts?: CallOptions,
  ): Promise<boolean>;

  addComment(item: ItemRef, draft: CommentDraft, opts?: CallOptions): Promise<Comment>;
  addTimeEntry(item: ItemRef, draft: TimeEntryDraft, opts?: CallOptions): Promise<TimeEntry>;

  listIterations(opts?: CallOptions): Promise<readonly Iteration[]>;
  /**
   * The write requests this tracker makes to create items of these kinds and statuses (the
   * drafts' own, in plan order), as it batches them and walks them to their statuses, for a dry
   * run's estimate; comments and time entries are not counted (one write each everywhere).
   * May read (Jira: the site's statuses). Absent: one write per create (tinyPM).
   */
  createWriteCost?(creates: readonly CreateOutline[], opts?: CallOptions): Promise<number>;
  /** Finds the iteration by name, or creates it. */
  ensureIteration(draft: IterationDraft, opts?: CallOptions): Promise<Iteration>;

  /**
   * Tells `listener` of each iteration or label this tracker creates from now on, as it creates
   * it (a run records them for `undo`); `undefined` stops telling. Absent where the tracker
   * creates none (tinyPM 2.x has no API to create iterations).
   */
  watchContainers?(listener: ((c: TrackerContainer) => void) | undefined): void;
  /** Every item that uses the iteration or label now, whoever made it. */
  containerUsers?(c: TrackerContainer, opts?: CallOptions): Promise<readonly ContainerUser[]>;
  /** Deletes an iteration or label; one gone already is no error. */
  deleteContainer?(c: TrackerContainer, opts?: CallOptions): Promise<void>;
  /**
   * Deletes an item for good where `delete` only closes it (GitHub: GraphQL `deleteIssue`, for
   * tokens with admin rights on the repository); a `PermissionError` when the token may not.
   */
  purge?(ref: ItemRef, opts?: CallOptions): Promise<void>;
  /** Whether `purge` is allowed to this token (GitHub: admin on the repository). */
  canPurge?(opts?: CallOptions): Promise<boolean>;

  listUsers(opts?: CallOptions): Promise<readonly UserRef[]>;
  /**
   * Completes `listUsers` refs with what costs one read per user (GitHub's public profile: display
   * name, public email), same order; absent where `listUsers` is already complete (Jira).
   */
  describeUsers?(users: readonly UserRef[], opts?: CallOptions): Promise<readonly UserRef[]>;

  /** Reachable, token accepted, project visible, permissions enough (used by `check`). */
  probe(opts?: CallOptions): Promise<ProbeResult>;

  /**
   * The fields this target keeps on a board beside the item (a GitHub Project (v2)): writing
   * them costs requests of their own (for a dry run's write estimate). Absent: no board.
   */
  readonly boardFields?: readonly string[] | undefined;

  /** Releases sockets and timers. */
  close(): Promise<void>;
}

export interface ProbeResult {
  readonly system: SystemName;
  readonly reachable: boolean;
  readonly authenticated: boolean;
  readonly projectVisible: boolean;
  readonly canWrite: boolean;
  /** What was probed, for people: "tinyPM 2.6 at http://…, project 1 'Widgets'". */
  readonly details: string;
  /** On a failed probe, what to do: the hint of the error the probe mapped. */
  readonly hint?: string | undefined;
  /**
   * What was probed beside the system itself, each a line of `check` (a GitHub job's Project
   * board: the project, the fields the mapping needs, the token's right to write it).
   */
  readonly parts?: readonly ProbeResult[] | undefined;
}
