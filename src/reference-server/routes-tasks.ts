import { taskListXml, taskXml } from "./render.js";
import {
  created,
  ok,
  projectOf,
  requireBody,
  storyParam,
  taskParam,
  type Reply,
  type RouteContext,
  type RouteDef,
} from "./route-types.js";
import { readTaskInput } from "./task-input.js";

function createTask(ctx: RouteContext): Reply {
  const story = storyParam(ctx);
  const project = projectOf(ctx, story.projectId);
  const input = readTaskInput(requireBody(ctx), { store: ctx.store, project, storyId: story.id });
  return created(ctx, "task", ctx.store.createTask(input).id);
}

export const TASK_ROUTES: readonly RouteDef[] = [
  {
    method: "GET",
    pattern: "/userstory/:id/tasks",
    handler: (ctx) => ok(taskListXml(ctx.store.tasksOf(storyParam(ctx).id), ctx)),
  },
  { method: "POST", pattern: "/userstory/:id/tasks", handler: createTask },
  // The legacy singular path some 2.0 clients used.
  { method: "POST", pattern: "/userstory/:id/task", handler: createTask },
  { method: "GET", pattern: "/task/:id", handler: (ctx) => ok(taskXml(taskParam(ctx), ctx)) },
  {
    method: "PUT",
    pattern: "/task/:id",
    handler: (ctx) => {
      const task = taskParam(ctx);
      const story = ctx.store.story(task.storyId);
      const project = projectOf(ctx, story?.projectId ?? 0);
      const input = readTaskInput(requireBody(ctx), {
        store: ctx.store,
        project,
        storyId: task.storyId,
      });
      ctx.store.replaceTask(task.id, input);
      return { status: 200, write: true };
    },
  },
  {
    method: "DELETE",
    pattern: "/task/:id",
    handler: (ctx) => {
      ctx.store.deleteTask(taskParam(ctx).id);
      return { status: 200, write: true };
    },
  },
];
