import { notFound } from "./api-error.js";
import { iterationsXml, projectXml, projectsXml, userXml, usersXml } from "./render.js";
import { ok, projectParam, type RouteDef } from "./route-types.js";

/** Users, projects and iterations: read-only in tinyPM's API. */
export const READ_ROUTES: readonly RouteDef[] = [
  {
    method: "GET",
    pattern: "/users",
    handler: (ctx) => ok(usersXml(ctx.store.listUsers())),
  },
  {
    method: "GET",
    pattern: "/user/:id",
    handler: (ctx) => {
      const raw = ctx.params.id ?? "";
      const user = /^\d{1,15}$/.test(raw) ? ctx.store.user(Number(raw)) : undefined;
      if (!user) throw notFound("User", raw);
      return ok(userXml(user, ctx.version));
    },
  },
  {
    method: "GET",
    pattern: "/projects",
    handler: (ctx) => ok(projectsXml(ctx.store.listProjects())),
  },
  {
    method: "GET",
    pattern: "/project/:id",
    handler: (ctx) => ok(projectXml(projectParam(ctx), ctx)),
  },
  {
    method: "GET",
    pattern: "/project/:id/iterations",
    handler: (ctx) => ok(iterationsXml(ctx.store.iterationsOf(projectParam(ctx).id))),
  },
];
