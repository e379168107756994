/**
 * The routes of the Data Center sandbox (`deployment: "datacenter"`): REST v2 (and `latest`)
 * only — no `/rest/api/3`, no `/search/jql`, no global `createmeta` (removed in 9.0) — over the
 * same store as the Cloud routes. Each v3 handler is reused through a translation: wiki strings
 * in (stored line by line), users by `name`/`key` in and out, the sprint field read back as Java
 * `toString()` strings. The Agile API keeps its paths.
 */
import { isRecord, ok, type Reply, type RequestContext, type RouteDef } from "./context.js";
import {
  dcGetUser,
  dcRequestUsers,
  dcUserOf,
  dcUserRef,
  dcUserSearch,
  isCloudUser,
} from "./dc-users.js";
import { dcMaxResultWindow, dcSearchGet, dcSearchPost } from "./dc-search.js";
import { sprintToString } from "./dc-sprint.js";
import { formatTime } from "./render.js";
import { v2Request, v2Response } from "./rest-v2.js";
import type { JiraStore } from "./store.js";

const V3 = "/rest/api/3/";
const PREFIXES = ["/rest/api/2/", "/rest/api/latest/"] as const;

/** Cloud-only routes that a Data Center site does not have. */
const CLOUD_ONLY = new Set([
  "GET /rest/api/3/issue/createmeta",
  "GET /rest/api/3/search/jql",
  "POST /rest/api/3/search/jql",
  "POST /rest/api/3/search/approximate-count",
  "POST /rest/api/3/issue/bulkfetch",
  "GET /rest/api/3/search",
  "POST /rest/api/3/search",
  "GET /rest/api/3/search/id",
  "POST /rest/api/3/search/id",
  "GET /rest/api/3/expression/eval",
  "POST /rest/api/3/expression/eval",
  "GET /rest/api/3/users/search",
  "GET /rest/api/3/users",
  // DC reads a changelog only through `GET /issue/{key}?expand=changelog`.
  "GET /rest/api/3/issue/:issueIdOrKey/changelog",
]);

/** The DC routes built from the Cloud ones (`routes`: v3 platform routes and Agile routes). */
export function dataCenterRoutes(routes: readonly RouteDef[]): RouteDef[] {
  const own = [...dcOwnRoutes(), ...dcWrappedRoutes(routes)];
  const taken = new Set(own.map((r) => `${r.method} ${r.pattern}`));
  const out: RouteDef[] = [...own];
  for (const route of routes) {
    if (CLOUD_ONLY.has(`${route.method} ${route.pattern}`)) continue;
    if (route.pattern.startsWith(V3)) {
      for (const prefix of PREFIXES) {
        const pattern = prefix + route.pattern.slice(V3.length);
        if (taken.has(`${route.method} ${pattern}`)) continue;
        taken.add(`${route.method} ${pattern}`);
        out.push({ ...route, pattern, handler: dcHandler(route.handler, prefix) });
      }
    } else if (route.pattern.startsWith("/rest/agile/")) {
      out.push({ ...route, handler: dcHandler(route.handler, PREFIXES[0]) });
    }
  }
  return out;
}

/** A v3 handler behind DC's wire format. */
function dcHandler(handler: RouteDef["handler"], prefix: string): RouteDef["handler"] {
  return (ctx: RequestContext): Reply => {
    const body = v2Request(dcRequestUsers(ctx.store.site, ctx.body));
    const reply = handler({ ...ctx, body });
    if (reply.body === undefined) return reply;
    const v2 = v2Response(reply.body, ctx.origin, prefix);
    return { ...reply, body: dcAnswer(ctx.store, ctx.origin, v2, undefined) };
  };
}

/** Users → `name`/`key` objects; the sprint field's objects → `toString()` strings. */
function dcAnswer(
  store: JiraStore,
  origin: string,
  value: unknown,
  key: string | undefined,
): unknown {
  if (Array.isArray(value)) {
    if (key === store.site.sprintFieldId) {
      return value.map((v: unknown) => {
        const sprint = isRecord(v) && typeof v.id === "number" ? store.findSprint(v.id) : undefined;
        return sprint === undefined ? v : sprintToString(sprint);
      });
    }
    return value.map((v) => dcAnswer(store, origin, v, key));
  }
  if (!isRecord(value)) return value;
  if (isCloudUser(value)) return dcUserOf(store.site, origin, value);
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, dcAnswer(store, origin, v, k)]),
  );
}

/**
 * A webhook payload (built in Cloud's shapes) as Jira Data Center 10 sends it: `self` links on
 * REST v2, wiki strings where Cloud has ADF, users by `name`/`key`, sprints as strings.
 */
export function dcWebhookPayload(store: JiraStore, origin: string, payload: unknown): unknown {
  return dcAnswer(store, origin, v2Response(payload, origin, PREFIXES[0]), undefined);
}

function serverInfo(ctx: RequestContext) {
  return ok({
    baseUrl: ctx.origin,
    version: "10.3.6",
    versionNumbers: [10, 3, 6],
    deploymentType: "Server",
    buildNumber: 10_030_006,
    buildDate: "2026-05-12T00:00:00.000+0000",
    serverTime: formatTime(ctx.store.now()),
    scmInfo: "9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b",
    serverTitle: "Jira Data Center sandbox",
  });
}

/** `{"name": …}` (DC) instead of `{"accountId": …}`; `{"name": ""}` or null unassigns. */
function assignByName(cloudAssign: RouteDef["handler"]): RouteDef["handler"] {
  return (ctx) => {
    const ref = isRecord(ctx.body) ? dcUserRef(ctx.store.site, ctx.body) : null;
    const accountId = isRecord(ref) ? ref.accountId : null;
    return cloudAssign({ ...ctx, body: { accountId } });
  };
}

/** DC logs work "now" when a worklog has no `started` (Cloud requires one). */
function startedNow(handler: RouteDef["handler"]): RouteDef["handler"] {
  return (ctx) => {
    if (!isRecord(ctx.body) || ctx.body.started !== undefined) return handler(ctx);
    return handler({ ...ctx, body: { ...ctx.body, started: formatTime(ctx.store.now()) } });
  };
}

/** DC pages create metadata as `{startAt, maxResults, total, isLast, values}`. */
function dcPage(handler: RouteDef["handler"], itemsKey: string): RouteDef["handler"] {
  return (ctx) => {
    const reply = handler(ctx);
    if (!isRecord(reply.body)) return reply;
    const items = Array.isArray(reply.body[itemsKey]) ? reply.body[itemsKey] : [];
    const startAt = Number(reply.body.startAt ?? 0);
    const total = Number(reply.body.total ?? items.length);
    return ok({
      maxResults: reply.body.maxResults,
      startAt,
      total,
      isLast: startAt + items.length >= total,
      values: items,
    });
  };
}

/** Routes whose DC shape differs from the Cloud twin's. */
function dcOwnRoutes(): RouteDef[] {
  const routes: RouteDef[] = [];
  for (const prefix of PREFIXES) {
    routes.push(
      { method: "GET", pattern: `${prefix}serverInfo`, handler: serverInfo },
      { method: "GET", pattern: `${prefix}search`, handler: dcHandler(dcSearchGet, prefix) },
      {
        method: "POST",
        pattern: `${prefix}search`,
        handler: dcHandler(dcSearchPost, prefix),
        write: false,
      },
      {
        method: "GET",
        pattern: `${prefix}searchLimits/maxResultWindow`,
        handler: dcMaxResultWindow,
      },
      { method: "GET", pattern: `${prefix}user/search`, handler: dcUserSearch },
      { method: "GET", pattern: `${prefix}user/assignable/search`, handler: dcUserSearch },
      { method: "GET", pattern: `${prefix}user`, handler: dcGetUser },
    );
  }
  return routes;
}

/** Routes that wrap a Cloud handler with a DC request or answer shape. */
function dcWrappedRoutes(routes: readonly RouteDef[]): RouteDef[] {
  const cloud = new Map(routes.map((r) => [`${r.method} ${r.pattern}`, r.handler]));
  const find = (key: string): RouteDef["handler"] => {
    const handler = cloud.get(key);
    if (handler === undefined) throw new Error(`the Jira sandbox has no route ${key}`);
    return handler;
  };
  const out: RouteDef[] = [];
  for (const prefix of PREFIXES) {
    const types = find("GET /rest/api/3/issue/createmeta/:projectIdOrKey/issuetypes");
    const fields = find("GET /rest/api/3/issue/createmeta/:projectIdOrKey/issuetypes/:issueTypeId");
    const assign = find("PUT /rest/api/3/issue/:issueIdOrKey/assignee");
    const addWorklog = find("POST /rest/api/3/issue/:issueIdOrKey/worklog");
    out.push(
      {
        method: "GET",
        pattern: `${prefix}issue/createmeta/:projectIdOrKey/issuetypes`,
        handler: dcHandler(dcPage(types, "issueTypes"), prefix),
      },
      {
        method: "GET",
        pattern: `${prefix}issue/createmeta/:projectIdOrKey/issuetypes/:issueTypeId`,
        handler: dcHandler(dcPage(fields, "fields"), prefix),
      },
      {
        method: "PUT",
        pattern: `${prefix}issue/:issueIdOrKey/assignee`,
        handler: assignByName(assign),
      },
      {
        method: "POST",
        pattern: `${prefix}issue/:issueIdOrKey/worklog`,
        handler: dcHandler(startedNow(addWorklog), prefix),
      },
    );
  }
  return out;
}
