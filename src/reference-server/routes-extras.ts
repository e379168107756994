import { badRequest } from "./api-error.js";
import type { CommentRecord } from "./model.js";
import { activityXml, commentXml, commentsXml, timesheetXml } from "./render.js";
import {
  expectRoot,
  readDecimal,
  readLongDate,
  readRequiredText,
  readShortDate,
  readText,
} from "./read-input.js";
import {
  iterationParam,
  nowLong,
  ok,
  projectOf,
  requireBody,
  storyParam,
  taskParam,
  type Reply,
  type RouteContext,
  type RouteDef,
} from "./route-types.js";
import { readUser } from "./story-input.js";

/** Comments and timesheets: the endpoints tinyPM added in 2.6. */
function addComment(ctx: RouteContext, target: "story" | "task"): Reply {
  const story = target === "story" ? storyParam(ctx) : undefined;
  const task = target === "task" ? taskParam(ctx) : undefined;
  const projectId = (story ?? ctx.store.story(task?.storyId ?? 0))?.projectId ?? 0;
  const body = requireBody(ctx);
  expectRoot(body, "comment");
  const given = readText(body, "author")?.trim();
  const ownerId = projectOf(ctx, projectId).ownerId;
  const owner = ownerId === undefined ? undefined : ctx.store.user(ownerId);
  const comment: CommentRecord = {
    storyId: story?.id,
    taskId: task?.id,
    author: given === undefined || given === "" ? (owner?.name ?? "Administrator") : given,
    date: readLongDate(body, "date") ?? nowLong(ctx),
    body: readRequiredText(body, "body"),
  };
  ctx.store.addComment(comment);
  return { status: 201, body: commentXml(comment), write: true };
}

function upsertActivity(ctx: RouteContext): Reply {
  const task = taskParam(ctx);
  const body = requireBody(ctx);
  expectRoot(body, "activity");
  const date = readShortDate(body, "date");
  if (date === undefined) throw badRequest("Missing <date> in <activity>: it is required");
  const timeSpent = readDecimal(body, "timeSpent");
  if (timeSpent === undefined)
    throw badRequest("Missing <timeSpent> in <activity>: it is required");
  const userId = readUser(body, "user", ctx.store);
  if (userId === undefined) throw badRequest("Missing <user> in <activity>: it is required");
  const result = ctx.store.upsertActivity({
    taskId: task.id,
    userId,
    date,
    timeSpent,
    timeLeft: readDecimal(body, "timeLeft"),
  });
  return {
    status: result.created ? 201 : 200,
    body: activityXml(result.activity, ctx),
    write: true,
  };
}

export const EXTRA_ROUTES: readonly RouteDef[] = [
  {
    method: "GET",
    pattern: "/userstory/:id/comments",
    since: "2.6",
    handler: (ctx) => ok(commentsXml(ctx.store.commentsOf("story", storyParam(ctx).id))),
  },
  {
    method: "POST",
    pattern: "/userstory/:id/comments",
    since: "2.6",
    handler: (ctx) => addComment(ctx, "story"),
  },
  {
    method: "GET",
    pattern: "/task/:id/comments",
    since: "2.6",
    handler: (ctx) => ok(commentsXml(ctx.store.commentsOf("task", taskParam(ctx).id))),
  },
  {
    method: "POST",
    pattern: "/task/:id/comments",
    since: "2.6",
    handler: (ctx) => addComment(ctx, "task"),
  },
  {
    method: "GET",
    pattern: "/iteration/:id/timesheet",
    since: "2.6",
    handler: (ctx) => ok(timesheetXml(ctx.store.activitiesOfIteration(iterationParam(ctx)), ctx)),
  },
  {
    method: "GET",
    pattern: "/task/:id/timesheet",
    since: "2.6",
    handler: (ctx) => ok(timesheetXml(ctx.store.activitiesOfTask(taskParam(ctx).id), ctx)),
  },
  { method: "POST", pattern: "/task/:id/timesheet", since: "2.6", handler: upsertActivity },
];
