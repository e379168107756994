import {
  PRIORITIES,
  type ActivityRecord,
  type ApiVersion,
  type CommentRecord,
  type IterationRecord,
  type LegacyStatus,
  type ProjectRecord,
  type StoryRecord,
  type TaskRecord,
  type TaskStatusRecord,
  type UserRecord,
} from "./model.js";
import type { ReferenceStore } from "./store.js";
import { XML_DECLARATION, decimalEl, listEl, plainEl, textEl } from "./xml-write.js";

/**
 * Resources → XML, in the orders of docs/tinypm-wire.md: listing forms alphabetical, detail
 * forms in domain order, null fields omitted.
 */
export interface RenderContext {
  readonly store: ReferenceStore;
  readonly version: ApiVersion;
  /** Story and task listings send complete elements (the detail form) instead of summaries. */
  readonly completeLists?: boolean | undefined;
}

/** A whole document: the declaration (2.6 only) and the root element. */
export function documentOf(version: ApiVersion, root: string): string {
  return version === "2.6" ? XML_DECLARATION + root : root;
}

export function errorXml(status: number, message: string): string {
  return `<error><status>${status}</status>${textEl("message", message)}</error>`;
}

const userCache = { "2.6": new WeakMap<UserRecord, string>(), "2.5": new WeakMap() };

/** The detail form of a user (also used wherever a user is nested). */
export function userXml(u: UserRecord, version: ApiVersion): string {
  const cache = userCache[version] as WeakMap<UserRecord, string>;
  let xml = cache.get(u);
  if (xml === undefined) {
    xml =
      `<user><id>${u.id}</id>${textEl("name", u.name)}${textEl("login", u.login)}` +
      `${textEl("email", u.email)}<active>${u.active}</active>` +
      `${version === "2.6" ? textEl("initials", u.initials) : ""}</user>`;
    cache.set(u, xml);
  }
  return xml;
}

function userRefXml(name: string, ctx: RenderContext, id: number | undefined): string {
  const u = id === undefined ? undefined : ctx.store.user(id);
  return u ? `<${name}>${userXml(u, ctx.version).slice(6, -7)}</${name}>` : "";
}

export function usersXml(users: readonly UserRecord[]): string {
  const items = users.map(
    (u) => `<user><active>${u.active}</active><id>${u.id}</id>${textEl("name", u.name)}</user>`,
  );
  return listEl("users", items.join(""));
}

export function projectsXml(projects: readonly ProjectRecord[]): string {
  const items = projects.map(
    (p) =>
      `<project><active>${p.active}</active>${textEl("code", p.code)}<id>${p.id}</id>` +
      `${textEl("name", p.name)}</project>`,
  );
  return listEl("projects", items.join(""));
}

function valuesXml(name: string, values: readonly number[]): string {
  return listEl(name, values.map((v) => decimalEl("value", v)).join(""));
}

function statusXml(s: TaskStatusRecord): string {
  return `<status><id>${s.id}</id>${textEl("name", s.name)}</status>`;
}

export function projectXml(p: ProjectRecord, ctx: RenderContext): string {
  const v26 = ctx.version === "2.6";
  return (
    `<project><id>${p.id}</id>${textEl("code", p.code)}${textEl("name", p.name)}` +
    `${textEl("description", p.description)}${textEl("startDate", p.startDate)}` +
    `${textEl("targetFinishDate", p.targetFinishDate)}${userRefXml("owner", ctx, p.ownerId)}` +
    (v26 ? listEl("taskStatuses", p.taskStatuses.map(statusXml).join("")) : "") +
    valuesXml("estimates", p.estimates) +
    (v26 ? valuesXml("taskEstimates", p.taskEstimates) : "") +
    `${plainEl("iterationLength", p.iterationLength)}${textEl("defaultTask", p.defaultTask)}` +
    `<active>${p.active}</active></project>`
  );
}

function iterationXml(it: IterationRecord): string {
  return (
    `<iteration><id>${it.id}</id>${textEl("name", it.name)}${textEl("goal", it.goal)}` +
    `${decimalEl("plannedVelocity", it.plannedVelocity)}<position>${it.position}</position>` +
    `<startDate>${it.startDate}</startDate><duration>${it.duration}</duration></iteration>`
  );
}

export function iterationsXml(list: readonly IterationRecord[]): string {
  return listEl("iterations", list.map(iterationXml).join(""));
}

function tagsXml(tags: readonly string[]): string {
  return listEl("tags", tags.map((t) => textEl("tag", t)).join(""));
}

const storyItemCache = { "2.6": new WeakMap<StoryRecord, string>(), "2.5": new WeakMap() };

/** One listing item; cached per record (a write replaces the record, so the cache stays true). */
function storyItemXml(s: StoryRecord, version: ApiVersion): string {
  const cache = storyItemCache[version] as WeakMap<StoryRecord, string>;
  let xml = cache.get(s);
  if (xml === undefined) {
    xml =
      version === "2.6"
        ? `<userStory><id>${s.id}</id>${plainEl("iterationId", s.iterationId)}` +
          `${textEl("name", s.name)}<position>${s.position}</position>${tagsXml(s.tags)}</userStory>`
        : `<userStory><id>${s.id}</id>${textEl("name", s.name)}</userStory>`;
    cache.set(s, xml);
  }
  return xml;
}

export function storyListXml(stories: readonly StoryRecord[], ctx: RenderContext): string {
  let items = "";
  if (ctx.completeLists === true) for (const s of stories) items += storyXml(s, ctx);
  else for (const s of stories) items += storyItemXml(s, ctx.version);
  return listEl("userStories", items);
}

function priorityXml(priority: number | undefined): string {
  if (priority === undefined) return "";
  const name = PRIORITIES[priority - 1] ?? "";
  return `<priority><id>${priority}</id><name>${name}</name><priority>${priority}</priority></priority>`;
}

export function storyXml(s: StoryRecord, ctx: RenderContext): string {
  const it = s.iterationId === undefined ? undefined : ctx.store.iteration(s.iterationId);
  const v26 = ctx.version === "2.6";
  return (
    `<userStory><id>${s.id}</id><position>${s.position}</position>${textEl("name", s.name)}` +
    `${textEl("description", s.description)}${priorityXml(s.priority)}` +
    `${decimalEl("estimatedEffort", s.estimatedEffort)}${it ? iterationXml(it) : ""}` +
    `${textEl("color", s.color)}${userRefXml("owner", ctx, s.ownerId)}` +
    userRefXml("acceptingUser", ctx, s.acceptingUserId) +
    textEl("acceptanceStatus", s.acceptanceStatus) +
    `${v26 ? tagsXml(s.tags) + commentsXml(ctx.store.commentsOf("story", s.id)) : ""}</userStory>`
  );
}

/** The legacy enum for a status: the first is PENDING, the last COMPLETED, others IN_PROGRESS. */
function legacyStatusOf(statuses: readonly TaskStatusRecord[], id: number): LegacyStatus {
  if (statuses[0]?.id === id) return "PENDING";
  if (statuses[statuses.length - 1]?.id === id) return "COMPLETED";
  return "IN_PROGRESS";
}

function taskStatusXml(t: TaskRecord, ctx: RenderContext): string {
  const story = ctx.store.story(t.storyId);
  const statuses = (story && ctx.store.project(story.projectId)?.taskStatuses) ?? [];
  if (ctx.version === "2.5") return `<status>${legacyStatusOf(statuses, t.statusId)}</status>`;
  const status = statuses.find((s) => s.id === t.statusId) ?? { id: t.statusId, name: "" };
  return statusXml(status);
}

export function taskListXml(tasks: readonly TaskRecord[], ctx: RenderContext): string {
  const items = tasks.map((t) =>
    ctx.completeLists === true
      ? taskXml(t, ctx)
      : `<task><id>${t.id}</id>${textEl("name", t.name)}${taskStatusXml(t, ctx)}</task>`,
  );
  return listEl("tasks", items.join(""));
}

export function taskXml(t: TaskRecord, ctx: RenderContext): string {
  const users = t.assignedUserIds
    .map((id) => ctx.store.user(id))
    .filter((u): u is UserRecord => u !== undefined)
    .map((u) => userXml(u, ctx.version));
  return (
    `<task><id>${t.id}</id>${textEl("name", t.name)}${textEl("description", t.description)}` +
    `${taskStatusXml(t, ctx)}${decimalEl("estimatedEffort", t.estimatedEffort)}` +
    `${textEl("startedAt", t.startedAt)}${textEl("completedAt", t.completedAt)}` +
    listEl("assignedUsers", users.join("")) +
    `${ctx.version === "2.6" ? commentsXml(ctx.store.commentsOf("task", t.id)) : ""}</task>`
  );
}

export function commentXml(c: CommentRecord): string {
  return `<comment>${textEl("author", c.author)}<date>${c.date}</date>${textEl("body", c.body)}</comment>`;
}

export function commentsXml(list: readonly CommentRecord[]): string {
  return listEl("comments", list.map(commentXml).join(""));
}

export function activityXml(a: ActivityRecord, ctx: RenderContext): string {
  const user = ctx.store.user(a.userId);
  const task = ctx.store.task(a.taskId);
  const story = task ? ctx.store.story(task.storyId) : undefined;
  const brief = (
    name: string,
    r: { id: number; name: string; estimatedEffort?: number | undefined },
  ) =>
    `<${name}><id>${r.id}</id>${textEl("name", r.name)}${decimalEl("estimatedEffort", r.estimatedEffort)}</${name}>`;
  return (
    `<activity><date>${a.date}</date>${decimalEl("timeSpent", a.timeSpent)}` +
    `${decimalEl("timeLeft", a.timeLeft)}${user ? userXml(user, ctx.version) : ""}` +
    `${task ? brief("task", task) : ""}${story ? brief("userStory", story) : ""}</activity>`
  );
}

export function timesheetXml(list: readonly ActivityRecord[], ctx: RenderContext): string {
  return listEl("timesheet", list.map((a) => activityXml(a, ctx)).join(""));
}
