import type {
  Comment,
  Iteration,
  IterationRef,
  TimeEntry,
  UserRef,
  WorkItem,
  WorkItemFields,
} from "../../core/model.js";
import type {
  RawActivity,
  RawComment,
  RawIteration,
  RawStatus,
  RawStory,
  RawTask,
  RawUser,
} from "./schema.js";

/** The API generation a server speaks: 2.6, or the 2.0–2.5 family (reported as "2.5"). */
export type ApiVersion = "2.6" | "2.5";

/** A project's task status (2.6), in board order. */
export interface TaskStatus {
  readonly id: string;
  readonly name: string;
}

/** Lookup tables a raw → canonical translation needs; all pure data. */
export interface MapContext {
  readonly version: ApiVersion;
  readonly statuses: readonly TaskStatus[];
  readonly iterations: readonly Iteration[];
  readonly users: readonly UserRef[];
  /**
   * The tinyPM web application's root (the API root without its `/api`), for the links reports
   * show (`WorkItem.url`); no links without it.
   */
  readonly webRoot?: string | undefined;
}

/** The API root without its trailing `/api`: `http://h/tinypm/api` → `http://h/tinypm`. */
export function webRootOf(apiBase: string): string {
  return apiBase.replace(/\/+$/, "").replace(/\/api$/i, "");
}

/**
 * The page of a story in tinyPM's web application (`<root>/userStory/show/<id>`); a task links to
 * its story's page, where tinyPM shows its tasks. Undefined without a web root or a story.
 */
export function storyPageUrl(ctx: MapContext, storyId: string | undefined): string | undefined {
  if (ctx.webRoot === undefined || storyId === undefined || storyId === "") return undefined;
  const key = `${ctx.webRoot}\u0000${storyId}`;
  const known = pages.get(key);
  if (known !== undefined) return known;
  const url = `${ctx.webRoot}/userStory/show/${encodeURIComponent(storyId)}`;
  if (pages.size >= PAGES_KEPT) pages.clear();
  pages.set(key, url);
  return url;
}

/**
 * One string per story page: a story and each of its tasks link to it, and a run holding every
 * item read kept a copy per item (88 bytes an item of a 16,000-item quiet sync).
 */
const pages = new Map<string, string>();
const PAGES_KEPT = 10_000;

/**
 * What most items have none of, shared: an empty list or record of their own cost every item
 * read 30–60 bytes each (comments, time entries, labels, assignees, metadata). Frozen: a
 * reader never changes an item's lists.
 */
const NONE: readonly never[] = Object.freeze([]);
const NO_METADATA: Readonly<Record<string, never>> = Object.freeze({});
const listOrNone = <T>(list: readonly T[]): readonly T[] => (list.length === 0 ? NONE : list);

export const PRIORITIES = ["MUST_HAVE", "SHOULD_HAVE", "COULD_HAVE", "WONT_HAVE"] as const;
/** The 2.0–2.5 task status enum. */
export const LEGACY_TASK_STATUSES = ["PENDING", "IN_PROGRESS", "COMPLETED"] as const;

export function toNumber(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** Decimals always with a point, as tinyPM writes them: `3` → `3.0`. */
export function formatDecimal(n: number): string {
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

/** `2012-02-04 21:17:47.765` → `2012-02-04T21:17:47.765`. */
export function longDateToIso(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  return value.trim().replace(" ", "T");
}

/** ISO (zone dropped, milliseconds padded) → `2012-02-04 21:17:47.765`. */
export function isoToLongDate(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d{1,3})\d*)?/.exec(iso);
  if (!m) return iso;
  const time = m[2]?.length === 5 ? `${m[2]}:00` : (m[2] ?? "00:00:00");
  return `${m[1] ?? ""} ${time}.${(m[3] ?? "").padEnd(3, "0")}`;
}

export function toUserRef(
  raw:
    | Partial<RawUser>
    | {
        readonly id?: string | undefined;
        readonly login?: string | undefined;
        readonly name?: string | undefined;
        readonly email?: string | undefined;
      },
): UserRef {
  const id = raw.id?.trim();
  const key = `${id ?? ""}\u0000${raw.login ?? ""}\u0000${raw.name ?? ""}\u0000${raw.email ?? ""}`;
  const known = users.get(key);
  if (known !== undefined) return known;
  const user: UserRef = Object.freeze({
    ...(id !== undefined && { id }),
    ...(raw.login !== undefined && { login: raw.login }),
    ...(raw.name !== undefined && { name: raw.name }),
    ...(raw.email !== undefined && { email: raw.email }),
  });
  if (users.size >= USERS_KEPT) users.clear();
  users.set(key, user);
  return user;
}

/**
 * One object per user referred to: every story, task, comment and time entry names its people
 * (owner, accepting user, assignees, author), and each reference read was an object of its own
 * with its own copies of the login, name and e-mail — 48,000 of them in a 16,000-item run, for
 * the few dozen people of a project. Shared references are frozen: a reader never changes one.
 */
const users = new Map<string, UserRef>();
const USERS_KEPT = 10_000;

/** A comment author is a display name; it resolves to the unique user of that name, if any. */
function resolveAuthor(name: string, users: readonly UserRef[]): UserRef {
  const matches = users.filter((u) => u.name === name);
  return matches.length === 1 && matches[0] ? matches[0] : { name };
}

export function toComment(raw: RawComment, ctx: MapContext): Comment {
  return {
    author: resolveAuthor(raw.author ?? "", ctx.users),
    createdAt: longDateToIso(raw.date) ?? "",
    body: raw.body ?? "",
  };
}

export function toTimeEntry(raw: RawActivity): TimeEntry {
  const remaining = toNumber(raw.timeLeft);
  return {
    user: raw.user ? toUserRef(raw.user) : {},
    date: raw.date.trim(),
    hours: toNumber(raw.timeSpent) ?? 0,
    ...(remaining !== undefined && { remainingHours: remaining }),
  };
}

function addDays(date: string, days: number): string | undefined {
  const t = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(t)) return undefined;
  return new Date(t + days * 86_400_000).toISOString().slice(0, 10);
}

/** The local calendar day of `date` (`yyyy-MM-dd`), as tinyPM's dates are written. */
export function localDay(date: Date): string {
  const pad = (n: number): string => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/**
 * An iteration, its state (`future`, `active`, `closed`) by `today`, the local calendar day
 * (`localDay`): one time-zone rule with tinyPM's own dates and its current iteration.
 */
export function toIteration(raw: RawIteration, today?: string): Iteration {
  const duration = toNumber(raw.duration);
  const start = raw.startDate?.trim();
  const end = start !== undefined && duration !== undefined ? addDays(start, duration) : undefined;
  const state =
    today === undefined || start === undefined || end === undefined
      ? undefined
      : today < start
        ? "future"
        : today < end
          ? "active"
          : "closed";
  return dropUndefined({
    id: raw.id.trim(),
    name: raw.name ?? "",
    goal: raw.goal,
    startDate: start,
    durationDays: duration,
    endDate: end,
    plannedVelocity: toNumber(raw.plannedVelocity),
    position: toNumber(raw.position),
    state,
  });
}

function storyIteration(raw: RawStory, ctx: MapContext): IterationRef | undefined {
  const id = (raw.iteration?.id ?? raw.iterationId)?.trim();
  if (id === undefined) return undefined;
  const name = raw.iteration?.name ?? ctx.iterations.find((i) => i.id === id)?.name ?? "";
  return { id, name };
}

function priorityName(raw: RawStory["priority"]): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw === "string") return raw.trim() === "" ? undefined : raw.trim();
  if (raw.name !== undefined) return raw.name;
  const n = toNumber(raw.id ?? raw.priority);
  return n === undefined ? undefined : PRIORITIES[n - 1];
}

/** A raw story detail → canonical story. Comments come inline (2.6) or from their endpoint. */
export function storyToItem(
  raw: RawStory,
  ctx: MapContext,
  comments?: readonly Comment[],
): WorkItem {
  return dropUndefined({
    system: "tinypm" as const,
    kind: "story" as const,
    id: raw.id.trim(),
    title: raw.name ?? "",
    description: raw.description,
    status: raw.acceptanceStatus ?? "PENDING",
    priority: priorityName(raw.priority),
    estimate: toNumber(raw.estimatedEffort),
    iteration: storyIteration(raw, ctx),
    assignees: raw.owner ? [toUserRef(raw.owner)] : NONE,
    acceptingUser: raw.acceptingUser ? toUserRef(raw.acceptingUser) : undefined,
    labels: listOrNone(raw.tags?.tag ?? NONE),
    color: raw.color,
    position: toNumber(raw.position),
    comments: listOrNone(comments ?? (raw.comments?.comment ?? NONE).map((c) => toComment(c, ctx))),
    timeEntries: NONE,
    metadata: NO_METADATA,
    url: storyPageUrl(ctx, raw.id.trim()),
  });
}

/** The status name of a raw task: the project's status name (2.6) or the enum (2.0–2.5). */
export function taskStatusName(
  raw: RawTask["status"],
  statuses: readonly RawStatus[] | readonly TaskStatus[],
): string {
  if (raw === undefined) return statuses[0]?.name ?? "PENDING";
  if (typeof raw === "string") return raw.trim();
  return raw.name ?? statuses.find((s) => s.id === raw.id.trim())?.name ?? raw.id;
}

interface TaskExtras {
  readonly storyId?: string | undefined;
  readonly comments?: readonly Comment[] | undefined;
  readonly timeEntries?: readonly TimeEntry[] | undefined;
}

/** A raw task detail → canonical task. */
export function taskToItem(raw: RawTask, ctx: MapContext, extras: TaskExtras = {}): WorkItem {
  return dropUndefined({
    system: "tinypm" as const,
    kind: "task" as const,
    id: raw.id.trim(),
    parentId: extras.storyId,
    title: raw.name ?? "",
    description: raw.description,
    status: taskStatusName(raw.status, ctx.statuses),
    estimate: toNumber(raw.estimatedEffort),
    assignees: listOrNone((raw.assignedUsers?.user ?? NONE).map(toUserRef)),
    labels: NONE,
    startedAt: longDateToIso(raw.startedAt),
    completedAt: longDateToIso(raw.completedAt),
    comments: listOrNone(
      extras.comments ?? (raw.comments?.comment ?? NONE).map((c) => toComment(c, ctx)),
    ),
    timeEntries: listOrNone(extras.timeEntries ?? NONE),
    metadata: NO_METADATA,
    url: storyPageUrl(ctx, extras.storyId),
  });
}

/** Drops keys whose value is `undefined` (exactOptionalPropertyTypes, stable equality). */
function dropUndefined<T extends object>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}

export type { WorkItemFields };
