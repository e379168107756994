import type { UserRef } from "../../core/model.js";
import { createTinypmTracker, type TinypmTracker, type TinypmTrackerOptions } from "./index.js";
import { mapOrdered } from "./ordered.js";
import { PRIORITIES, longDateToIso, taskStatusName, toNumber } from "./map.js";
import {
  rawTimesheet,
  type RawActivity,
  type RawComment,
  type RawStory,
  type RawTask,
} from "./schema.js";
import type { DocumentCache } from "./document-cache.js";

/** A user as the archive refers to one: id and login (docs/export-format.md). */
export interface ArchiveUserRef {
  readonly id: string;
  readonly login: string | null;
}
interface ArchiveComment {
  readonly author: string;
  readonly date: string | null;
  readonly body: string;
}
interface ArchiveTimeEntry {
  readonly date: string;
  readonly timeSpent: number;
  readonly timeLeft: number | null;
  readonly user: ArchiveUserRef | null;
}
interface ArchiveTask {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly status: { readonly id: string | null; readonly name: string };
  readonly startedAt: string | null;
  readonly completedAt: string | null;
  readonly assignedUsers: readonly ArchiveUserRef[];
  readonly estimatedEffort: number | null;
  readonly comments: readonly ArchiveComment[];
  readonly timeEntries: readonly ArchiveTimeEntry[];
}
interface ArchiveStory {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly priority: { readonly id: string; readonly name: string } | null;
  readonly estimatedEffort: number | null;
  readonly iteration: { readonly id: string; readonly name: string } | null;
  readonly color: string | null;
  readonly owner: ArchiveUserRef | null;
  readonly acceptingUser: ArchiveUserRef | null;
  readonly acceptanceStatus: string | null;
  readonly tags: readonly string[];
  readonly position: number | null;
  readonly comments: readonly ArchiveComment[];
  readonly tasks: readonly ArchiveTask[];
}
interface ArchiveUser {
  readonly id: string;
  readonly login: string | null;
  readonly name: string | null;
  readonly email: string | null;
}
interface ArchiveIteration {
  readonly id: string;
  readonly name: string;
  readonly goal: string | null;
  readonly plannedVelocity: number | null;
  readonly position: number | null;
  readonly startDate: string | null;
  readonly duration: number | null;
}
export interface TinypmArchive {
  readonly format: "tinypm-sync.export";
  readonly formatVersion: 1;
  readonly apiVersion: "2.6" | "2.5";
  readonly project: {
    readonly id: string;
    readonly code: string | null;
    readonly name: string;
    readonly description: string | null;
    readonly startDate: string | null;
    readonly targetFinishDate: string | null;
    readonly owner: ArchiveUserRef | null;
    readonly iterationLength: number | null;
    readonly defaultTask: string | null;
    readonly active: boolean | null;
    readonly estimates: readonly number[];
    readonly taskEstimates: readonly number[];
  };
  readonly users: readonly ArchiveUser[];
  readonly iterations: readonly ArchiveIteration[];
  readonly taskStatuses: readonly { readonly id: string; readonly name: string }[];
  readonly stories: readonly ArchiveStory[];
}

interface ExportOptions {
  /** Called after each story: `done` of `total` stories read. */
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
}

const orNull = <T>(v: T | undefined): T | null => v ?? null;
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byNumId = (a: { id: string }, b: { id: string }): number => Number(a.id) - Number(b.id);

function userRef(
  raw: { readonly id?: string | undefined; readonly login?: string | undefined } | undefined,
  users: readonly UserRef[],
): ArchiveUserRef | null {
  if (raw?.id === undefined) return null;
  const id = raw.id.trim();
  return { id, login: raw.login ?? users.find((u) => u.id === id)?.login ?? null };
}

function comment(raw: RawComment): ArchiveComment {
  return { author: raw.author ?? "", date: orNull(longDateToIso(raw.date)), body: raw.body ?? "" };
}

const sortComments = (list: ArchiveComment[]): ArchiveComment[] =>
  list.sort(
    (a, b) =>
      byText(a.date ?? "", b.date ?? "") || byText(a.author, b.author) || byText(a.body, b.body),
  );

function timeEntry(raw: RawActivity, users: readonly UserRef[]): ArchiveTimeEntry {
  return {
    date: raw.date.trim(),
    timeSpent: toNumber(raw.timeSpent) ?? 0,
    timeLeft: orNull(toNumber(raw.timeLeft)),
    user: userRef(raw.user, users),
  };
}

async function commentsOf(
  session: DocumentCache,
  kind: "story" | "task",
  id: string,
  inline: RawStory["comments"],
  signal?: AbortSignal,
): Promise<ArchiveComment[]> {
  if (inline) return sortComments((inline.comment ?? []).map(comment));
  if ((await session.version()) !== "2.6") return [];
  const list = await session.comments(kind, id, undefined, signal);
  return sortComments(
    list.map((c) => ({ author: c.author.name ?? "", date: c.createdAt || null, body: c.body })),
  );
}

async function exportTask(
  session: DocumentCache,
  id: string,
  signal?: AbortSignal,
): Promise<ArchiveTask | undefined> {
  const doc = await session.getTask(id, signal);
  if (!doc) return undefined;
  const t: RawTask = doc.data;
  const ctx = await session.context();
  const [comments, sheet] = await Promise.all([
    commentsOf(session, "task", id, t.comments, signal),
    ctx.version === "2.6"
      ? session.client.getXml(
          { path: `/task/${id}/timesheet`, operation: "GET /task/{id}/timesheet", id, signal },
          rawTimesheet,
        )
      : Promise.resolve({ activity: [] as RawActivity[] }),
  ]);
  const statusId = typeof t.status === "object" ? t.status.id.trim() : null;
  return {
    id: t.id.trim(),
    name: t.name ?? "",
    description: orNull(t.description),
    status: { id: statusId, name: taskStatusName(t.status, ctx.statuses) },
    startedAt: orNull(longDateToIso(t.startedAt)),
    completedAt: orNull(longDateToIso(t.completedAt)),
    assignedUsers: (t.assignedUsers?.user ?? [])
      .map((u) => userRef(u, ctx.users))
      .filter((u): u is ArchiveUserRef => u !== null)
      .sort(byNumId),
    estimatedEffort: orNull(toNumber(t.estimatedEffort)),
    comments,
    timeEntries: (sheet.activity ?? [])
      .map((a) => timeEntry(a, ctx.users))
      .sort((a, b) => byText(a.date, b.date) || byText(a.user?.login ?? "", b.user?.login ?? "")),
  };
}

function priorityOf(raw: RawStory["priority"]): { id: string; name: string } | null {
  if (raw === undefined) return null;
  if (typeof raw === "string") {
    const i = (PRIORITIES as readonly string[]).indexOf(raw.trim());
    return i === -1 ? null : { id: String(i + 1), name: raw.trim() };
  }
  const n = toNumber(raw.id ?? raw.priority);
  const name = raw.name ?? (n === undefined ? undefined : PRIORITIES[n - 1]);
  return n === undefined || name === undefined ? null : { id: String(n), name };
}

async function exportStory(
  session: DocumentCache,
  id: string,
  signal?: AbortSignal,
): Promise<ArchiveStory | undefined> {
  const [doc, taskIds] = await Promise.all([
    session.getStory(id, signal),
    session.listTaskIds(id, signal),
  ]);
  if (!doc) return undefined;
  const s = doc.data;
  const ctx = await session.context();
  const [comments, tasks] = await Promise.all([
    commentsOf(session, "story", id, s.comments, signal),
    Promise.all(taskIds.map((t) => exportTask(session, t, signal))),
  ]);
  const iterationId = (s.iteration?.id ?? s.iterationId)?.trim();
  const iterationName =
    s.iteration?.name ?? ctx.iterations.find((i) => i.id === iterationId)?.name ?? "";
  return {
    id: s.id.trim(),
    name: s.name ?? "",
    description: orNull(s.description),
    priority: priorityOf(s.priority),
    estimatedEffort: orNull(toNumber(s.estimatedEffort)),
    iteration: iterationId === undefined ? null : { id: iterationId, name: iterationName },
    color: orNull(s.color),
    owner: userRef(s.owner, ctx.users),
    acceptingUser: userRef(s.acceptingUser, ctx.users),
    acceptanceStatus: orNull(s.acceptanceStatus),
    tags: s.tags?.tag ?? [],
    position: orNull(toNumber(s.position)),
    comments,
    tasks: tasks.filter((t): t is ArchiveTask => t !== undefined).sort(byNumId),
  };
}

/**
 * The job's tinyPM project as a JSON archive (format in docs/export-format.md), read with the
 * tracker's bounded concurrency. Accepts a tracker, or the options to make (and close) one.
 */
export async function exportProject(
  source: TinypmTracker | TinypmTrackerOptions,
  opts: ExportOptions = {},
): Promise<TinypmArchive> {
  const own = "session" in source ? undefined : createTinypmTracker(source);
  const tracker = own ?? (source as TinypmTracker);
  try {
    return await buildArchive(tracker, opts);
  } finally {
    await own?.close();
  }
}

async function buildArchive(tracker: TinypmTracker, opts: ExportOptions): Promise<TinypmArchive> {
  const session = tracker.session;
  const [p, ctx, summaries] = await Promise.all([
    session.project(),
    session.context(),
    session.listStories(opts.signal),
  ]);
  const stories: ArchiveStory[] = [];
  const window = Math.max(2, session.concurrency * 2);
  let done = 0;
  for await (const story of mapOrdered(summaries, window, (s) =>
    exportStory(session, s.id, opts.signal),
  )) {
    if (story) stories.push(story);
    opts.onProgress?.(++done, summaries.length);
  }
  stories.sort(
    (a, b) => (a.position ?? Infinity) - (b.position ?? Infinity) || Number(a.id) - Number(b.id),
  );
  const iterations = ctx.iterations
    .map((i) => ({
      id: i.id,
      name: i.name,
      goal: orNull(i.goal),
      plannedVelocity: orNull(i.plannedVelocity),
      position: orNull(i.position),
      startDate: orNull(i.startDate),
      duration: orNull(i.durationDays),
    }))
    .sort((a, b) => (a.position ?? 0) - (b.position ?? 0) || byText(a.name, b.name));
  const project = await tracker.getProject();
  return {
    format: "tinypm-sync.export",
    formatVersion: 1,
    apiVersion: ctx.version,
    project: {
      id: project.id,
      code: orNull(project.code),
      name: project.name,
      description: orNull(project.description),
      startDate: orNull(project.startDate),
      targetFinishDate: orNull(project.targetFinishDate),
      owner: userRef(p.owner, ctx.users),
      iterationLength: orNull(project.iterationLength),
      defaultTask: orNull(project.defaultTask),
      active: orNull(project.active),
      estimates: project.estimates,
      taskEstimates: project.taskEstimates,
    },
    users: ctx.users
      .map((u) => ({
        id: u.id ?? "",
        login: orNull(u.login),
        name: orNull(u.name),
        email: orNull(u.email),
      }))
      .sort((a, b) => byText(a.login ?? "", b.login ?? "") || byNumId(a, b)),
    iterations,
    taskStatuses: [...(await tracker.listTaskStatuses())],
    stories,
  };
}
