import { NotFoundError } from "../../core/errors.js";
import { explainMissingProject } from "./diagnose.js";
import type { Comment, Iteration, TimeEntry, UserRef } from "../../core/model.js";
import type { TinypmClient } from "./client.js";
import { createLimiter, mapOrdered, type Limiter } from "./limiter.js";
import {
  toComment,
  toIteration,
  toTimeEntry,
  toUserRef,
  type ApiVersion,
  type MapContext,
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
}

/**
 * Reading state shared by the tracker and the exporter: the client, the project and the lookup
 * tables (read once, refreshable), and the raw reads of stories and tasks.
 */
export interface TinypmSession {
  readonly client: TinypmClient;
  readonly projectId: string;
  readonly concurrency: number;
  /** Serializes creates where the new id is found by listing (2.0–2.5). */
  readonly createLock: Limiter;
  project(): Promise<RawProject>;
  version(): Promise<ApiVersion>;
  /** The version once probed, else `undefined`. */
  knownVersion(): ApiVersion | undefined;
  context(): Promise<MapContext>;
  refreshContext(): void;
  listStories(signal?: AbortSignal): Promise<StorySummary[]>;
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

async function orUndefined<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

export function createSession(
  client: TinypmClient,
  projectId: string,
  concurrency: number,
): TinypmSession {
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
    const today = new Date().toISOString().slice(0, 10);
    const iterations: Iteration[] = (its.iteration ?? []).map((i) => toIteration(i, today));
    return { version: v, statuses, iterations, users };
  }
  const context = memo(readContext);

  const session: TinypmSession = {
    client,
    projectId,
    concurrency,
    createLock: createLimiter(1),
    project: project.get,
    version: version.get,
    knownVersion: () => known,
    context: context.get,
    refreshContext: () => {
      context.reset();
      project.reset();
    },
    async listStories(signal) {
      const list = await client.getXml(
        {
          path: `/project/${pid}/userstories`,
          operation: "GET /project/{id}/userstories",
          id: projectId,
          signal,
        },
        rawStories,
      );
      return (list.userStory ?? []).map((s) => ({
        id: s.id.trim(),
        name: s.name ?? "",
        position: s.position === undefined ? undefined : Number(s.position),
      }));
    },
    async listTaskIds(storyId, signal) {
      const list = await client.getXml(
        {
          path: `/userstory/${storyId}/tasks`,
          operation: "GET /userstory/{id}/tasks",
          id: storyId,
          signal,
        },
        rawTasks,
      );
      const ids = (list.task ?? []).map((t) => t.id.trim());
      for (const id of ids) parents.set(id, storyId);
      return ids;
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
