import { statusHistory, statusLeftSince } from "./status-history.js";
import type {
  ItemKind,
  ItemRef,
  Iteration,
  IterationDraft,
  Marker,
  UserRef,
  WorkItemDraft,
} from "../../core/model.js";
import type {
  CallOptions,
  ContainerUser,
  ProbeResult,
  Tracker,
  TrackerContainer,
  CreateOutline,
} from "../../core/tracker.js";
import { createJiraClient, createJiraEndpoints } from "./client.js";
import type { Logger } from "../../core/logger.js";
import type { JiraContext, JiraSettings } from "./context.js";
import { createUnfinished } from "./create.js";
import { createDefaults } from "./create-defaults.js";
import { createWriteCost } from "./create-cost.js";
import { markerKey } from "./context.js";
import { DEFAULT_OVERLAP_MS } from "./checkpoint.js";
import type { RequestGate } from "../../core/request-gate.js";
import { probeSite } from "./probe.js";
import { changeFeed } from "./feed.js";
import { checkpointAfterWrites } from "./feed-prime.js";
import { remembered, remembering, rememberingPages, type KnownVersions } from "./known-versions.js";
import { KnownTable } from "./known-table.js";
import { watchWrites } from "./write-watch.js";
import { findItemByMarker, getItem, listItems } from "./reads.js";
import { rawPriorities, rawStatuses, rawWorklogPage } from "./schema.js";
import { createSiteLoader } from "./site.js";
import { listAssignableUsers } from "./users.js";
import {
  deleteSprint,
  ensureSprint,
  listSprints,
  moveToSprint,
  sprintIssueKeys,
  toIteration,
} from "./sprints.js";
import { listTransitions, transitionTo } from "./transition.js";
import { addComment, addTimeEntry, deleteItem, updateItem } from "./writes.js";
import { toTimeEntry } from "./map.js";
import { sleep } from "../../core/sleep.js";

export interface JiraTrackerOptions {
  readonly baseUrl: string;
  readonly email: string;
  readonly token: string;
  readonly projectKey: string;
  /** Names of the environment variables holding email and token (named in auth errors). */
  readonly emailEnv?: string | undefined;
  readonly tokenEnv?: string | undefined;
  readonly boardId?: number | undefined;
  /** The story-points field id; discovered from the board's estimation field when absent. */
  readonly storyPointsField?: string | undefined;
  /** Resolution to set when a transition into a status needs one (Done→Done, Rejected→Won't Do). */
  readonly statusResolutions?: Readonly<Record<string, string>> | undefined;
  readonly logger?: Logger | undefined;
  /**
   * The request gate every HTTP request goes through: Jira's limits (per-issue write windows,
   * 20 per 2 s and 100 per 30 s), `Retry-After` waits, retries, timeouts, cancellation. The CLI
   * passes the token's shared gate. @default ungated
   */
  readonly gate?: RequestGate | undefined;
  readonly pageSize?: number | undefined;
  readonly overlapMs?: number | undefined;
  /** How far back `findByMarker` scans entity properties when JQL finds nothing. @default 7 days */
  readonly markerScanMs?: number | undefined;
  readonly storyType?: string | undefined;
  readonly subtaskType?: string | undefined;
  readonly timeoutMs?: number | undefined;
  /** `datacenter`: Jira Data Center (REST v2, wiki markup, users by name, the token a PAT). */
  readonly deployment?: "cloud" | "datacenter" | undefined;
  /** PEM file of the CA that signed a self-hosted site's certificate. */
  readonly caFile?: string | undefined;
}

function buildContext(options: JiraTrackerOptions): JiraContext {
  const client = createJiraClient({
    baseUrl: options.baseUrl,
    email: options.email,
    token: options.token,
    emailEnv: options.emailEnv,
    tokenEnv: options.tokenEnv,
    logger: options.logger,
    timeoutMs: options.timeoutMs,
    gate: options.gate,
    deployment: options.deployment,
    caFile: options.caFile,
  });
  const known: KnownVersions = new KnownTable();
  // Every issue write forgets the version known of its issue (write-watch.ts).
  const api = watchWrites(createJiraEndpoints(client), known);
  const settings: JiraSettings = {
    baseUrl: client.baseUrl,
    projectKey: options.projectKey,
    statusResolutions: options.statusResolutions ?? {},
    overlapMs: options.overlapMs ?? DEFAULT_OVERLAP_MS,
    markerScanMs: options.markerScanMs ?? 7 * 86_400_000,
    pageSize: options.pageSize ?? 100,
    storyType: options.storyType ?? "Story",
    subtaskType: options.subtaskType ?? "Sub-task",
  };
  return {
    client,
    api,
    settings,
    site: createSiteLoader(client, api, options),
    sleep,
    graphs: new Map(),
    listing: new Map(),
    statuses: {},
    markerIndex: { keys: new Map(), scannedToMs: undefined },
    created: new Map(),
    createDefaults: new Map(),
    known,
    initialStatus: new Map(),
    sprints: { ensuring: new Map() },
  };
}

/** The Jira Cloud adapter: REST v3 + Agile through jira.js 5. */
export function createJiraTracker(options: JiraTrackerOptions) {
  const ctx = buildContext(options);
  const unfinished = createUnfinished(ctx);
  // What the tracker hands the engine is a version the engine holds (known-versions.ts).
  const known = ctx.known;
  const tracker = {
    system: "jira" as const,
    capabilities: {
      comments: true,
      timeEntries: true,
      iterations: true,
      labels: true,
      delete: "hard" as const,
      changeFeed: "updated-since" as const,
      markers: true,
      bulkCreate: 50,
    },
    list: (
      query: { kind?: "story" | "task" | undefined; parentId?: string | undefined },
      opts?: CallOptions,
    ) => remembering(known, listItems(ctx, query, opts?.onUnreadable)),
    get: async (ref: ItemRef, opts?: CallOptions) =>
      remembered(known, await getItem(ctx, ref, opts?.onUnreadable)),
    create: async (draft: WorkItemDraft, opts?: { signal?: AbortSignal | undefined }) =>
      remembered(known, await unfinished.create(draft, opts?.signal)),
    createMany: async (
      drafts: readonly WorkItemDraft[],
      opts?: { signal?: AbortSignal | undefined },
    ) => (await unfinished.createMany(drafts, opts?.signal)).map((r) => remembered(known, r)),
    update: async (
      ref: ItemRef,
      patch: Parameters<typeof updateItem>[2],
      opts?: { signal?: AbortSignal | undefined },
    ) => remembered(known, await updateItem(ctx, ref, patch, opts?.signal)),
    delete: (ref: ItemRef, opts?: { signal?: AbortSignal | undefined }) =>
      deleteItem(ctx, ref, opts?.signal),
    changes: (from: Parameters<typeof changeFeed>[1], opts?: CallOptions) =>
      rememberingPages(known, changeFeed(ctx, from, opts?.onUnreadable)),
    checkpointAfterWrites: (
      opts?: CallOptions & { readonly onNone?: ((why: string) => void) | undefined },
    ) => checkpointAfterWrites(ctx, opts?.signal, opts?.onNone),
    createDefaults: (kind: ItemKind) => createDefaults(ctx, kind),
    statusHistory: (ref: ItemRef) => statusHistory(ctx, ref.id),
    statusLeftSince: (ref: ItemRef, status: string, since: string) =>
      statusLeftSince(ctx, ref.id, status, since),
    findByMarker: async (marker: Marker) => {
      const item = await findItemByMarker(ctx, marker);
      return remembered(
        known,
        item === undefined ? undefined : await unfinished.found(item, markerKey(marker)),
      );
    },
    addComment: (
      item: ItemRef,
      draft: Parameters<typeof addComment>[2],
      opts?: { signal?: AbortSignal | undefined },
    ) => addComment(ctx, item, draft, opts?.signal),
    addTimeEntry: (
      item: ItemRef,
      draft: Parameters<typeof addTimeEntry>[2],
      opts?: { signal?: AbortSignal | undefined },
    ) => addTimeEntry(ctx, item, draft, opts?.signal),
    async createWriteCost(creates: readonly CreateOutline[]): Promise<number> {
      if (creates.length === 0) return 0;
      const raw = ctx.client.parse(rawStatuses, await ctx.api.statuses(), {
        operation: "GET /rest/api/3/status",
      });
      const outline = raw.map((s) => ({ name: s.name, category: s.statusCategory?.key ?? "" }));
      return createWriteCost(creates, outline);
    },
    async listIterations(): Promise<readonly Iteration[]> {
      const sprints = await listSprints(ctx);
      ctx.sprints.promise = Promise.resolve(sprints); // the freshest listing serves creates too
      return sprints.map(toIteration);
    },
    async ensureIteration(draft: IterationDraft): Promise<Iteration> {
      // A fresh listing: an iteration is ensured once per run, and a stale cache could miss a
      // sprint made elsewhere since (and create a duplicate).
      const listed = await listSprints(ctx);
      const sprint = await ensureSprint(ctx, draft, listed);
      // No listing cached yet: this one (with the sprint made, if any) serves the creates that
      // name a sprint, instead of a listing of their own on the way.
      ctx.sprints.promise ??= Promise.resolve(listed);
      return toIteration(sprint);
    },
    watchContainers(listener: ((c: TrackerContainer) => void) | undefined) {
      ctx.sprints.onCreated =
        listener === undefined
          ? undefined
          : (s) => {
              listener({ kind: "iteration", id: String(s.id), name: s.name });
            };
    },
    // Sprints only: a Jira label is a word on an issue, nothing to create or delete.
    async containerUsers(c: TrackerContainer): Promise<readonly ContainerUser[]> {
      if (c.kind !== "iteration") return [];
      return (await sprintIssueKeys(ctx, Number(c.id))).map((id) => ({ id }));
    },
    async deleteContainer(c: TrackerContainer): Promise<void> {
      if (c.kind === "iteration") await deleteSprint(ctx, Number(c.id));
    },
    listUsers: (): Promise<readonly UserRef[]> => listAssignableUsers(ctx),
    probe: (): Promise<ProbeResult> => probeSite(ctx),
    serverNow: () => ctx.client.serverNow(),
    async close() {
      ctx.client.close();
      return Promise.resolve();
    },
  } satisfies Tracker;
  return { ...tracker, ...jiraExtras(ctx) };
}

/** What the Jira adapter offers beyond the Tracker interface. */
function jiraExtras(ctx: JiraContext) {
  return {
    transitionTo: (ref: ItemRef, status: string) => transitionTo(ctx, ref.id, status),
    listTransitions: (ref: ItemRef) => listTransitions(ctx, ref.id),
    async listPriorities(): Promise<string[]> {
      const raw = ctx.client.parse(rawPriorities, await ctx.api.priorities(), {
        operation: "GET /rest/api/3/priority",
      });
      return raw.map((p) => p.name);
    },
    async listWorklogs(ref: ItemRef) {
      const raw = ctx.client.parse(rawWorklogPage, await ctx.api.getWorklogs(ref.id, 0), {
        operation: "GET /rest/api/3/issue/{key}/worklog",
        id: ref.id,
      });
      return raw.worklogs.map(toTimeEntry);
    },
    moveToSprint: async (sprintId: string, refs: readonly ItemRef[]) =>
      moveToSprint(
        ctx,
        Number(sprintId),
        refs.map((r) => r.id),
      ),
    storyPointsField: async () => (await ctx.site()).storyPointsField,
  };
}
