import type { WorkItemFields } from "../../core/model.js";
import type { JiraClient, JiraEndpoints } from "./client.js";
import type { KnownVersions } from "./known-versions.js";
import type { RawSprint } from "./schema.js";
import type { SiteInfo } from "./site.js";
import type { WorkflowEdge } from "./workflow.js";

/** Settings every part of the adapter reads, after defaults. */
export interface JiraSettings {
  readonly baseUrl: string;
  readonly projectKey: string;
  readonly statusResolutions: Readonly<Record<string, string>>;
  readonly overlapMs: number;
  /** How far back the marker scan looks for issues created by an interrupted run. */
  readonly markerScanMs: number;
  readonly pageSize: number;
  readonly storyType: string;
  readonly subtaskType: string;
}

/** The values Jira gives a created issue for fields its create left out (adapter terms). */
export type CreateDefaults = Partial<Pick<WorkItemFields, "priority">>;

/** The adapter's shared state, passed to the read and write modules (no singletons). */
export interface JiraContext {
  readonly client: JiraClient;
  readonly api: JiraEndpoints;
  readonly settings: JiraSettings;
  readonly site: () => Promise<SiteInfo>;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Learned workflow edges: issue type → status → transitions. */
  readonly graphs: Map<string, Map<string, readonly WorkflowEdge[]>>;
  /**
   * Workflow probes in flight, by `issue type|status`: concurrent walks from one status list its
   * transitions once (the answer lands in `graphs`).
   */
  readonly listing: Map<string, Promise<readonly WorkflowEdge[]>>;
  /** The site's status names, loaded once (the promise is shared by concurrent callers). */
  readonly statuses: { promise?: Promise<readonly string[]> | undefined };
  /**
   * Markers read from recent issues' entity properties (no JQL indexing needed): marker key →
   * issue key, and the time (ms) up to which issues were scanned.
   */
  readonly markerIndex: { readonly keys: Map<string, string>; scannedToMs: number | undefined };
  /** Keys this instance created, by marker key (search may lag behind creates). */
  readonly created: Map<string, string>;
  /** What a create leaves out gets, by issue type name (create metadata, read once). */
  readonly createDefaults: Map<string, Promise<CreateDefaults>>;
  /**
   * The issue versions the engine holds, by key (known-versions.ts): what the adapter handed it
   * and the comments and worklogs it added since. Every issue write through `api` forgets its
   * issue (write-watch.ts). Read after a migration's writes (feed-prime.ts).
   */
  readonly known: KnownVersions;
  /** The status a created issue starts in, by issue type (learned from the first create). */
  readonly initialStatus: Map<string, string>;
  /**
   * The board's sprints, listed once (shared by concurrent callers) and dropped when this adapter
   * creates a sprint; `ensuring` holds sprint creates in flight by name (no duplicate sprints).
   */
  readonly sprints: {
    promise?: Promise<RawSprint[]> | undefined;
    readonly ensuring: Map<string, Promise<RawSprint>>;
    /** Told of each sprint this adapter creates (a run records them for `undo`). */
    onCreated?: ((sprint: RawSprint) => void) | undefined;
  };
}

export function markerKey(m: {
  job: string;
  origin: string;
  originKind: string;
  originId: string;
  instance?: string | undefined;
}): string {
  // Joined, not a template: a template's string is a tree of concatenations, flattened into a
  // copy beside it once hashed as a map key, and the run keeps one key per create (a map of
  // 100,000 such keys: 193 bytes an entry from a template, 132 joined).
  return [m.job, m.origin, m.originKind, m.originId, m.instance ?? ""].join("|");
}
