import { NotFoundError } from "../../core/errors.js";
import { explainMissingProject } from "./diagnose.js";
import type { Comment, Iteration, TimeEntry, UserRef } from "../../core/model.js";
import type { TinypmClient } from "./client.js";
import { createSerial, mapOrdered, type Serial } from "./ordered.js";
import {
  localDay,
  toComment,
  toIteration,
  toTimeEntry,
  toUserRef,
  type ApiVersion,
  type MapContext,
  webRootOf,
  type TaskStatus,
} from "./map.js";
import {
  rawComments,
  rawIterations,
  rawProject,
  rawStories,
  rawStory,
  rawTask,
  rawTasks,
  rawTimesheet,
  rawUser,
  rawUsers,
  type RawProject,
  type RawStory,
  type RawTask,
} from "./schema.js";
import type { XmlNode } from "./wire.js";

/** A raw document as read: the element tree (kept for PUT) and its validated view. */
export interface RawDoc<T> {
  readonly node: XmlNode;
  readonly data: T;
}

export interface StorySummary {
  readonly id: string;
  readonly name: string;
  readonly position: number | undefined;
  /** 2.6 listings: the story's iteration (absent in the backlog and in 2.0–2.5 listings). */
  readonly iterationId?: string | undefined;
  /** The listed element as sent (a complete listing makes it the detail). */
  readonly node: XmlNode;
}

/** A task as listed under its story. */
export interface TaskSummary {
  readonly id: string;
  readonly node: XmlNode;
}

/**
 * The documents read from tinyPM, cached (shared by the tracker and the exporter): the client,
 * the project and the lookup tables (read once, refreshable), and the raw reads of stories and
 * tasks.
 */
export interface DocumentCache {
  readonly client: TinypmClient;
  readonly projectId: string;
  readonly concurrency: number;
  /** Serializes creates where the new id is found by listing (2.0–2.5). */
  readonly createLock: Serial;
  project(): Promise<RawProject>;
  version(): Promise<ApiVersion>;
  /** The version once probed, else `undefined`. */
  knownVersion(): ApiVersion | undefined;
  context(): Promise<MapContext>;
  refreshContext(): void;
  /** The project's stories; `iteration` filters on one iteration (the 2.4.1+ filter). */
  listStories(signal?: AbortSignal, filter?: { iteration: string }): Promise<StorySummary[]>;
  listTasks(storyId: string, signal?: AbortSignal): Promise<TaskSummary[]>;
  listTaskIds(storyId: string, signal?: AbortSignal): Promise<string[]>;
  getStory(id: string, signal?: AbortSignal): Promise<RawDoc<RawStory> | undefined>;
  getTask(id: string, signal?: AbortSignal): Promise<RawDoc<RawTask> | undefined>;
  comments(
    kind: "story" | "task",
    id: string,
    inline: RawStory["comments"],
    signal?: AbortSignal,
  ): Promise<Comment[]>;
  timeEntries(taskId: string, signal?: AbortSignal): Promise<TimeEntry[]>;
  /** 2.6: every time entry of an iteration's tasks in one request, by task id. */
  iterationTimesheet(iterationId: string, signal?: AbortSignal): Promise<Map<string, TimeEntry[]>>;
  /** The story of a task (cached from listings; a scan on a miss). */
  parentOf(taskId: string, signal?: AbortSignal): Promise<string | undefined>;
  rememberParent(taskId: string, storyId: string): void;
  forgetTask(taskId: string): void;
}

function memo<T>(fn: () => Promise<T>): { get: () => Promise<T>; reset: () => void } {
  let cached: Promise<T> | undefined;
  return {
    get: () => {
      cached ??= fn().catch((error: unknown) => {
        cached = undefined;
        throw error;
      });
      return cached;
    },
    reset: () => {
      cached = undefined;
    },
  };
}

const asNode = (v: unknown): XmlNode =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as XmlNode) : {};

/** The elements named `child` of a listing's root, as sent (one element or several). */
function listedNodes(root: unknown, child: string): XmlNode[] {
  const value = asNode(root)[child];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(asNode);
}

async function orUndefined<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

export function createDocumentCache(
  client: TinypmClient,
  projectId: string,
  concurrency: number,
  now: () => Date = () => new Date(),
): DocumentCache {
  const pid = encodeURIComponent(projectId);
  const parents = new Map<string, string>();

  const project = memo(async () => {
    try {
      return await client.getXml(
        { path: `/project/${pid}`, operation: "GET /project/{id}", id: projectId },
        rawProject,
      );
    } catch (error) {
      if (error instanceof NotFoundError)
        throw await explainMissingProject(client, projectId, error);
      throw error;
    }
  });
  // The server version is probed once: 2.6 projects carry their task statuses.
  let known: ApiVersion | undefined;
  const version = memo(async (): Promise<ApiVersion> => {
    known = (await project.get()).taskStatuses ? "2.6" : "2.5";
    return known;
  });

  async function readUsers(): Promise<UserRef[]> {
    const list = await client.getXml({ path: "/users", operation: "GET /users" }, rawUsers);
    const ids = (list.user ?? []).map((u) => u.id.trim());
    const out: UserRef[] = [];
    for await (const user of mapOrdered(ids, concurrency, (id) =>
      client.getXml({ path: `/user/${id}`, operation: "GET /user/{id}", id }, rawUser),
    )) {
      const inactive = user.active?.trim() === "false";
      out.push(inactive ? { ...toUserRef(user), active: false } : toUserRef(user));
    }
    return out;
  }

  async function readContext(): Promise<MapContext> {
    // The project first: a wrong project or base URL is then explained, not met as a 404 on users.
    await project.get();
    const [p, v, its, users] = await Promise.all([
      project.get(),
      version.get(),
      client.getXml(
        {
          path: `/project/${pid}/iterations`,
          operation: "GET /project/{id}/iterations",
          id: projectId,
        },
        rawIterations,
      ),
      readUsers(),
    ]);
    const statuses: TaskStatus[] = (p.taskStatuses?.status ?? []).map((s) => ({
      id: s.id.trim(),
      name: s.name ?? "",
    }));
    // tinyPM's dates are calendar days of its server's time zone (taken to be this host's, as
    // the reference server does): today is the local day, never the UTC one.
    const today = localDay(now());
    const iterations: Iteration[] = (its.iteration ?? []).map((i) => toIteration(i, today));
    return { version: v, statuses, iterations, users, webRoot: webRootOf(client.baseUrl) };
  }
  const context = memo(readContext);

  const session: DocumentCache = {
    client,
    projectId,
    concurrency,
    createLock: createSerial(),
    project: project.get,
    version: version.get,
    knownVersion: () => known,
    context: context.get,
    refreshContext: () => {
      context.reset();
      project.reset();
    },
    async listStories(signal, filter) {
      const query =
        filter === undefined ? "" : `?iteration=${encodeURIComponent(filter.iteration)}`;
      const list = await client.getDoc(
        {
          path: `/project/${pid}/userstories${query}`,
          operation: "GET /project/{id}/userstories",
          id: projectId,
          signal,
        },
        rawStories,
      );
      const nodes = listedNodes(list.node, "userStory");
      return (list.data.userStory ?? []).map((s, i) => ({
        id: s.id.trim(),
        name: s.name ?? "",
        position: s.position === undefined ? undefined : Number(s.position),
        iterationId: (s.iterationId ?? s.iteration?.id)?.trim(),
        node: nodes[i] ?? {},
      }));
    },
    async listTasks(storyId, signal) {
      const list = await client.getDoc(
        {
          path: `/userstory/${storyId}/tasks`,
          operation: "GET /userstory/{id}/tasks",
          id: storyId,
          signal,
        },
        rawTasks,
      );
      const nodes = listedNodes(list.node, "task");
      const tasks = (list.data.task ?? []).map((t, i) => ({
        id: t.id.trim(),
        node: nodes[i] ?? {},
      }));
      for (const t of tasks) parents.set(t.id, storyId);
      return tasks;
    },
    async listTaskIds(storyId, signal) {
      return (await session.listTasks(storyId, signal)).map((t) => t.id);
    },
    async getStory(id, signal) {
      const doc = await orUndefined(
        client.getDoc(
          { path: `/userstory/${id}`, operation: "GET /userstory/{id}", id, signal },
          rawStory,
        ),
      );
      return doc && { node: asNode(doc.node), data: doc.data };
    },
    async getTask(id, signal) {
      const doc = await orUndefined(
        client.getDoc({ path: `/task/${id}`, operation: "GET /task/{id}", id, signal }, rawTask),
      );
      return doc && { node: asNode(doc.node), data: doc.data };
    },
    async comments(kind, id, inline, signal) {
      const ctx = await context.get();
      if (inline) return (inline.comment ?? []).map((c) => toComment(c, ctx));
      if (ctx.version !== "2.6") return [];
      const seg = kind === "story" ? "userstory" : "task";
      const list = await client.getXml(
        { path: `/${seg}/${id}/comments`, operation: `GET /${seg}/{id}/comments`, id, signal },
        rawComments,
      );
      return (list.comment ?? []).map((c) => toComment(c, ctx));
    },
    async timeEntries(taskId, signal) {
      if ((await version.get()) !== "2.6") return [];
      const sheet = await client.getXml(
        {
          path: `/task/${taskId}/timesheet`,
          operation: "GET /task/{id}/timesheet",
          id: taskId,
          signal,
        },
        rawTimesheet,
      );
      return (sheet.activity ?? []).map(toTimeEntry);
    },
    async iterationTimesheet(iterationId, signal) {
      const sheet = await client.getXml(
        {
          path: `/iteration/${encodeURIComponent(iterationId)}/timesheet`,
          operation: "GET /iteration/{id}/timesheet",
          id: iterationId,
          signal,
        },
        rawTimesheet,
      );
      const byTask = new Map<string, TimeEntry[]>();
      for (const a of sheet.activity ?? []) {
        const taskId = a.task?.id.trim();
        if (taskId === undefined) continue;
        const entries = byTask.get(taskId) ?? [];
        entries.push(toTimeEntry(a));
        byTask.set(taskId, entries);
      }
      return byTask;
    },
    async parentOf(taskId, signal) {
      const known = parents.get(taskId);
      if (known !== undefined) return known;
      const stories = await session.listStories(signal);
      for await (const _ of mapOrdered(stories, concurrency, (s) =>
        session.listTaskIds(s.id, signal),
      )) {
        // listTaskIds fills the cache
      }
      return parents.get(taskId);
    },
    rememberParent: (taskId, storyId) => parents.set(taskId, storyId),
    forgetTask: (taskId) => parents.delete(taskId),
  };
  return session;
}
