import { NotFoundError, UsageError } from "../../core/errors.js";
import type {
  Comment,
  ItemRef,
  Iteration,
  IterationDraft,
  TimeEntry,
  UserRef,
  WorkItem,
} from "../../core/model.js";
import type { CallOptions, TieredScan, Tracker, TrackerCapabilities } from "../../core/tracker.js";
import { createTinypmClient } from "./client.js";
import type { Logger } from "../../core/logger.js";
import { fullScanFeed } from "./feed.js";
import { probe } from "./probe.js";
import { mapOrdered } from "./ordered.js";
import {
  LEGACY_TASK_STATUSES,
  toNumber,
  toUserRef,
  type ApiVersion,
  type TaskStatus,
} from "./map.js";
import { type OnUnreadable } from "./unreadable.js";
import { readItem, readStory, readTask, readTasksOf, scanProject } from "./reads.js";
import { rawProjects } from "./schema.js";
import { createDocumentCache, type DocumentCache } from "./document-cache.js";
import { DEFAULT_MAX_DEPTH, DEFAULT_MAX_RESPONSE_BYTES } from "./wire.js";
import { createItem } from "./create.js";
import { startTieredScan } from "./tiers.js";
import { addComment, addTimeEntry, deleteItem } from "./writes.js";
import { updateItem } from "./update.js";
import type { RequestGate } from "../../core/request-gate.js";

export interface TinypmTrackerOptions {
  /** The API root, ending in `/api` (e.g. `http://localhost:8080/tinypm/api`). */
  readonly baseUrl: string;
  /** Sent as `X-tinyPM-token`; never in URLs, errors or logs. */
  readonly token: string;
  readonly projectId: string | number;
  /** HTTP requests in flight at most (a polite default for a server on the user's own machine). @default 4 */
  readonly concurrency?: number | undefined;
  /** Per-request timeout. @default 30000 */
  readonly timeoutMs?: number | undefined;
  /** Largest response accepted. @default 16 MiB */
  readonly maxResponseBytes?: number | undefined;
  /** Deepest element nesting accepted. @default 64 */
  readonly maxDepth?: number | undefined;
  /** pino-compatible; one debug line per HTTP call. */
  readonly logger?: Logger | undefined;
  readonly userAgent?: string | undefined;
  /**
   * The request gate every HTTP request goes through (limits, retries, waits, cancellation); the
   * CLI passes the token's shared gate. @default ungated (each request sent once)
   */
  readonly gate?: RequestGate | undefined;
  /**
   * The clock deciding which iteration is active (tinyPM's dates are calendar days of the
   * server's time zone, taken to be this host's). @default the system clock
   */
  readonly now?: (() => Date) | undefined;
}

/** The tinyPM project as `getProject()` returns it. */
interface TinypmProject {
  readonly id: string;
  readonly code?: string | undefined;
  readonly name: string;
  readonly description?: string | undefined;
  readonly startDate?: string | undefined;
  readonly targetFinishDate?: string | undefined;
  readonly owner?: UserRef | undefined;
  readonly taskStatuses: readonly TaskStatus[];
  readonly estimates: readonly number[];
  readonly taskEstimates: readonly number[];
  readonly iterationLength?: number | undefined;
  readonly defaultTask?: string | undefined;
  readonly active?: boolean | undefined;
}

interface TinypmProjectSummary {
  readonly id: string;
  readonly code?: string | undefined;
  readonly name: string;
  readonly active: boolean;
}

export interface TinypmTracker extends Tracker {
  getProject(): Promise<TinypmProject>;
  listProjects(): Promise<readonly TinypmProjectSummary[]>;
  /** 2.6: the project's statuses in board order; 2.0–2.5: the fixed enum. */
  listTaskStatuses(): Promise<readonly TaskStatus[]>;
  listComments(ref: ItemRef): Promise<readonly Comment[]>;
  listTimeEntries(taskId: string): Promise<readonly TimeEntry[]>;
  serverVersion(): Promise<ApiVersion>;
  startTieredScan(opts?: CallOptions): Promise<TieredScan>;
  /** The reading session (used by `exportProject`). */
  readonly session: DocumentCache;
}

const CAPABILITIES: TrackerCapabilities = {
  comments: true,
  timeEntries: true,
  iterations: true,
  labels: true,
  delete: "hard",
  changeFeed: "full-scan",
  markers: false,
  bulkCreate: 1,
};

/** 2.0–2.5 servers have no comment or timesheet endpoints. */
const CAPABILITIES_25: TrackerCapabilities = {
  ...CAPABILITIES,
  comments: false,
  timeEntries: false,
};

const numbers = (values: readonly string[] | undefined): number[] =>
  (values ?? []).map((v) => toNumber(v)).filter((n): n is number => n !== undefined);

export function createTinypmTracker(options: TinypmTrackerOptions): TinypmTracker {
  const concurrency = options.concurrency ?? 4;
  const client = createTinypmClient({
    baseUrl: options.baseUrl,
    token: options.token,
    concurrency,
    timeoutMs: options.timeoutMs ?? 30_000,
    limits: {
      maxBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH,
    },
    logger: options.logger,
    userAgent: options.userAgent,
    gate: options.gate,
  });
  const session = createDocumentCache(client, String(options.projectId), concurrency, options.now);

  async function* list(
    query: { kind?: "story" | "task" | undefined; parentId?: string | undefined },
    signal?: AbortSignal,
    onUnreadable?: OnUnreadable,
  ): AsyncGenerator<WorkItem> {
    if (query.parentId !== undefined) {
      if (query.kind !== "story") yield* await readTasksOf(session, query.parentId, signal);
      return;
    }
    const withTasks = query.kind !== "story";
    for await (const tree of scanProject(session, { signal, withTasks, onUnreadable })) {
      if (query.kind !== "task") yield tree.story;
      if (query.kind !== "story") yield* tree.tasks;
    }
  }

  async function listTaskStatuses(): Promise<readonly TaskStatus[]> {
    const ctx = await session.context();
    return ctx.version === "2.6"
      ? ctx.statuses
      : LEGACY_TASK_STATUSES.map((s) => ({ id: s, name: s }));
  }

  const tracker = {
    system: "tinypm" as const,
    /** Those of 2.6 until the version is probed (any read probes it), then the server's own. */
    get capabilities(): TrackerCapabilities {
      return session.knownVersion() === "2.5" ? CAPABILITIES_25 : CAPABILITIES;
    },
    session,
    list: (query, opts) => list(query, opts?.signal, opts?.onUnreadable),
    get: (ref, opts) => readItem(session, ref, opts?.signal, opts?.onUnreadable),
    create: (draft, opts) => createItem(session, draft, opts?.signal),
    async createMany(drafts, opts) {
      const out: (WorkItem | Error)[] = [];
      const attempt = (d: (typeof drafts)[number]): Promise<WorkItem | Error> =>
        createItem(session, d, opts?.signal).catch((error: unknown) =>
          error instanceof Error ? error : new Error(String(error)),
        );
      for await (const result of mapOrdered(drafts, concurrency, attempt)) out.push(result);
      return out;
    },
    update: (ref, patch, opts) => updateItem(session, ref, patch, opts?.signal),
    delete: (ref, opts) => deleteItem(session, ref, opts?.signal),
    changes: (from, opts) => fullScanFeed(session, from, { signal: opts?.signal }),
    startTieredScan: (opts) => startTieredScan(session, opts?.signal),
    // tinyPM can hold no marker: the engine reconciles tinyPM creates by content.
    findByMarker: () => Promise.resolve(undefined),
    addComment: (ref, draft, opts) => addComment(session, ref, draft, opts?.signal),
    addTimeEntry: (ref, draft, opts) => addTimeEntry(session, ref, draft, opts?.signal),
    async listIterations() {
      return (await session.context()).iterations;
    },
    async ensureIteration(draft: IterationDraft): Promise<Iteration> {
      session.refreshContext();
      const found = (await session.context()).iterations.find((i) => i.name === draft.name);
      if (found) return found;
      throw new UsageError(
        `tinyPM project ${session.projectId} has no iteration named "${draft.name}", and tinyPM 2.x has no API to create iterations.`,
        { hint: "Create the iteration in the tinyPM web interface (same name), then run again." },
      );
    },
    async listUsers() {
      return (await session.context()).users;
    },
    probe: () => probe(session),
    close() {
      client.close();
      return Promise.resolve();
    },
    async getProject(): Promise<TinypmProject> {
      const p = await session.project();
      return {
        id: p.id.trim(),
        code: p.code,
        name: p.name ?? "",
        description: p.description,
        startDate: p.startDate,
        targetFinishDate: p.targetFinishDate,
        owner: p.owner?.id === undefined ? undefined : toUserRef({ ...p.owner, id: p.owner.id }),
        taskStatuses: await listTaskStatuses(),
        estimates: numbers(p.estimates?.value),
        taskEstimates: numbers(p.taskEstimates?.value),
        iterationLength: toNumber(p.iterationLength),
        defaultTask: p.defaultTask,
        active: p.active === undefined ? undefined : p.active.trim() === "true",
      };
    },
    async listProjects() {
      const list = await client.getXml(
        { path: "/projects", operation: "GET /projects" },
        rawProjects,
      );
      return (list.project ?? []).map((p) => ({
        id: p.id.trim(),
        code: p.code,
        name: p.name ?? "",
        active: p.active?.trim() === "true",
      }));
    },
    listTaskStatuses,
    async listComments(ref: ItemRef) {
      const item =
        ref.kind === "story"
          ? await readStory(session, ref.id)
          : await readTask(session, ref.id, "");
      if (!item)
        throw new NotFoundError(`tinyPM has no ${ref.kind} ${ref.id}.`, {
          system: "tinypm",
          operation: "comments",
          id: ref.id,
          status: 404,
        });
      return item.comments;
    },
    listTimeEntries: (taskId: string) => session.timeEntries(taskId),
    serverVersion: () => session.version(),
  } satisfies TinypmTracker;
  return tracker;
}
