import { ApiError, badRequest } from "./api-error.js";
import { ACCEPTANCE, PRIORITIES, type IterationRecord, type StoryRecord } from "./model.js";
import { storyListXml, storyXml } from "./render.js";
import {
  created,
  iterationParam,
  ok,
  projectOf,
  projectParam,
  requireBody,
  storyParam,
  todayShort,
  type Reply,
  type RouteContext,
  type RouteDef,
} from "./route-types.js";
import type { ReferenceStore } from "./store.js";
import { readStoryInput } from "./story-input.js";

const PROGRESS = ["PENDING", "IN_PROGRESS", "COMPLETED"] as const;

/** A story's progress, derived from its tasks' statuses. */
function storyProgress(store: ReferenceStore, story: StoryRecord): string {
  const statuses = store.project(story.projectId)?.taskStatuses ?? [];
  const first = statuses[0]?.id;
  const last = statuses[statuses.length - 1]?.id;
  const tasks = store.tasksOf(story.id);
  if (tasks.length > 0 && tasks.every((t) => t.statusId === last)) return "COMPLETED";
  if (tasks.every((t) => t.statusId === first)) return "PENDING";
  return "IN_PROGRESS";
}

function choice(
  ctx: RouteContext,
  name: string,
  validValues: readonly string[] | (() => readonly string[]),
): string | undefined {
  const v = ctx.query.get(name);
  if (v === null || v === "") return undefined;
  const valid = typeof validValues === "function" ? validValues() : validValues;
  if (!valid.includes(v)) {
    throw badRequest(
      `Invalid filter parameter ${name}=${JSON.stringify(v)}; valid: ${valid.join(", ")}`,
    );
  }
  return v;
}

type Filter = (s: StoryRecord) => boolean;

/** The filters of `GET /project/{id}/userstories`: status, acceptanceStatus, owner, priority, iteration. */
function storyFilters(ctx: RouteContext, projectId: number): Filter[] {
  const filters: Filter[] = [];
  const status = choice(ctx, "status", PROGRESS);
  if (status) filters.push((s) => storyProgress(ctx.store, s) === status);
  const acceptance = choice(ctx, "acceptanceStatus", ACCEPTANCE);
  if (acceptance) filters.push((s) => s.acceptanceStatus === acceptance);
  const owner = choice(
    ctx,
    "owner",
    ctx.store.listUsers().map((u) => String(u.id)),
  );
  if (owner) filters.push((s) => s.ownerId === Number(owner));
  const priority = choice(ctx, "priority", ["1", "2", "3", "4", ...PRIORITIES]);
  if (priority) {
    const n = /^\d$/.test(priority) ? Number(priority) : PRIORITIES.indexOf(priority as never) + 1;
    filters.push((s) => s.priority === n);
  }
  const iteration = choice(ctx, "iteration", () => [
    "backlog",
    ...ctx.store.iterationsOf(projectId).map((it) => String(it.id)),
  ]);
  if (iteration === "backlog") filters.push((s) => s.iterationId === undefined);
  else if (iteration) filters.push((s) => s.iterationId === Number(iteration));
  return filters;
}

function listProject(ctx: RouteContext): Reply {
  const project = projectParam(ctx);
  const filters = storyFilters(ctx, project.id);
  const all = ctx.store.storiesOf(project.id);
  const stories = filters.length === 0 ? all : all.filter((s) => filters.every((f) => f(s)));
  return ok(storyListXml(stories, ctx));
}

function currentIteration(ctx: RouteContext): IterationRecord {
  const project = projectParam(ctx);
  const it = ctx.store.currentIteration(project.id, todayShort(ctx));
  if (!it) throw new ApiError(404, `Project ${project.id} has no current iteration`);
  return it;
}

function wantsDefaultTasks(ctx: RouteContext): boolean {
  const v = ctx.query.get("addDefaultTasks");
  if (ctx.version === "2.5") return v !== "false";
  return v === "true" || v === "on" || v === "1";
}

function createStory(ctx: RouteContext, projectId: number, iteration?: IterationRecord): Reply {
  const project = projectOf(ctx, projectId);
  const input = readStoryInput(requireBody(ctx), { store: ctx.store, project, iteration });
  const story = ctx.store.createStory(input);
  const template = project.defaultTask;
  const first = project.taskStatuses[0];
  if (wantsDefaultTasks(ctx) && template !== undefined && first) {
    ctx.store.createTask({
      storyId: story.id,
      name: template.replaceAll("{0}", story.name),
      statusId: first.id,
      assignedUserIds: [],
    });
  }
  return created(ctx, "userstory", story.id);
}

export const STORY_ROUTES: readonly RouteDef[] = [
  { method: "GET", pattern: "/project/:id/userstories", handler: listProject },
  {
    method: "POST",
    pattern: "/project/:id/userstories",
    handler: (ctx) => createStory(ctx, projectParam(ctx).id),
  },
  {
    method: "GET",
    pattern: "/project/:id/iteration/current/userstories",
    handler: (ctx) => ok(storyListXml(ctx.store.storiesInIteration(currentIteration(ctx)), ctx)),
  },
  {
    method: "POST",
    pattern: "/project/:id/iteration/current/userstories",
    handler: (ctx) => {
      const it = currentIteration(ctx);
      return createStory(ctx, it.projectId, it);
    },
  },
  {
    method: "GET",
    pattern: "/iteration/:id/userstories",
    since: "2.6",
    handler: (ctx) => ok(storyListXml(ctx.store.storiesInIteration(iterationParam(ctx)), ctx)),
  },
  {
    method: "POST",
    pattern: "/iteration/:id/userstories",
    since: "2.6",
    handler: (ctx) => {
      const it = iterationParam(ctx);
      return createStory(ctx, it.projectId, it);
    },
  },
  {
    method: "GET",
    pattern: "/userstory/:id",
    handler: (ctx) => ok(storyXml(storyParam(ctx), ctx)),
  },
  {
    method: "PUT",
    pattern: "/userstory/:id",
    handler: (ctx) => {
      const story = storyParam(ctx);
      const project = projectOf(ctx, story.projectId);
      ctx.store.replaceStory(
        story.id,
        readStoryInput(requireBody(ctx), { store: ctx.store, project }),
      );
      return { status: 200, write: true };
    },
  },
  {
    method: "DELETE",
    pattern: "/userstory/:id",
    handler: (ctx) => {
      ctx.store.deleteStory(storyParam(ctx).id);
      return { status: 200, write: true };
    },
  },
];
