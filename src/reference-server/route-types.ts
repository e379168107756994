import type { Params } from "../server-kit/router.js";
import { ApiError, notFound } from "./api-error.js";
import type {
  ApiVersion,
  IterationRecord,
  ProjectRecord,
  StoryRecord,
  TaskRecord,
} from "./model.js";
import type { RenderContext } from "./render.js";
import type { ReferenceStore } from "./store.js";
import type { XmlElement } from "./xml-read.js";
import { formatLongDate, formatShortDate } from "./xml-write.js";

/** What a route handler gets for one request. */
export interface RouteContext extends RenderContext {
  readonly store: ReferenceStore;
  readonly version: ApiVersion;
  readonly params: Params;
  readonly query: URLSearchParams;
  /** The parsed request body (POST and PUT only). */
  readonly body: XmlElement | undefined;
  /** `http://host:port/tinypm/api`, for `Location` headers. */
  readonly baseUrl: string;
  readonly today: () => Date;
}

/** A route's answer; `body` is the root element (the declaration is added when sending). */
export interface Reply {
  readonly status: number;
  readonly body?: string | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** Whether the request changed data (counted in stats). */
  readonly write?: boolean | undefined;
}

export type RouteHandler = (ctx: RouteContext) => Reply;

export interface RouteDef {
  readonly method: "GET" | "POST" | "PUT" | "DELETE";
  readonly pattern: string;
  readonly handler: RouteHandler;
  /** Served only from this API version on (absent = every version). */
  readonly since?: "2.6" | undefined;
}

export function ok(body: string): Reply {
  return { status: 200, body };
}

const ID = /^[1-9]\d{0,14}$/;

function idParam(ctx: RouteContext, kind: string): number {
  const raw = ctx.params.id ?? "";
  if (!ID.test(raw)) throw notFound(kind, raw);
  return Number(raw);
}

export function projectParam(ctx: RouteContext): ProjectRecord {
  const id = idParam(ctx, "Project");
  const p = ctx.store.project(id);
  if (!p) throw notFound("Project", id);
  return p;
}

export function iterationParam(ctx: RouteContext): IterationRecord {
  const id = idParam(ctx, "Iteration");
  const it = ctx.store.iteration(id);
  if (!it) throw notFound("Iteration", id);
  return it;
}

export function storyParam(ctx: RouteContext): StoryRecord {
  const id = idParam(ctx, "User story");
  const s = ctx.store.story(id);
  if (!s) throw notFound("User story", id);
  return s;
}

export function taskParam(ctx: RouteContext): TaskRecord {
  const id = idParam(ctx, "Task");
  const t = ctx.store.task(id);
  if (!t) throw notFound("Task", id);
  return t;
}

export function projectOf(ctx: RouteContext, projectId: number): ProjectRecord {
  const p = ctx.store.project(projectId);
  if (!p) throw new ApiError(500, `Project ${projectId} is missing from the store`);
  return p;
}

export function requireBody(ctx: RouteContext): XmlElement {
  if (!ctx.body) throw new ApiError(400, "A request body is required");
  return ctx.body;
}

export function todayShort(ctx: RouteContext): string {
  return formatShortDate(ctx.today());
}

export function nowLong(ctx: RouteContext): string {
  return formatLongDate(ctx.today());
}

/** The answer to a create: 2.6 → 201 + Location + id object; 2.5 → 200 without a body. */
export function created(ctx: RouteContext, kind: "userstory" | "task", id: number): Reply {
  if (ctx.version === "2.5") return { status: 200, write: true };
  return {
    status: 201,
    body: `<idObject><id>${id}</id></idObject>`,
    headers: { location: `${ctx.baseUrl}/${kind}/${id}` },
    write: true,
  };
}
