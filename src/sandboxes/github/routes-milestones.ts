import { parseTimestamp } from "./clock.js";
import { json, noContent, type Reply, type RequestContext, type RouteDef } from "./context.js";
import { normaliseDueOn } from "./due-date.js";
import { notFound, validationFailed } from "./errors.js";
import {
  objectBody,
  optEnum,
  optNullableString,
  required,
  stringOrInteger,
  type Body,
} from "./input.js";
import { paginate } from "./paging.js";
import { renderMilestone, repoApiUrl } from "./render.js";
import { findMilestone, touch, type MilestoneRecord, type Store } from "./store.js";

/** Milestones: list (state, sort, direction), get, create, update, delete. */
export const milestoneRoutes: readonly RouteDef[] = [
  { method: "GET", pattern: "/repos/:owner/:repo/milestones", handler: listMilestones },
  {
    method: "POST",
    pattern: "/repos/:owner/:repo/milestones",
    handler: createMilestone,
    creates: true,
  },
  { method: "GET", pattern: "/repos/:owner/:repo/milestones/:number", handler: getMilestone },
  { method: "PATCH", pattern: "/repos/:owner/:repo/milestones/:number", handler: updateMilestone },
  { method: "DELETE", pattern: "/repos/:owner/:repo/milestones/:number", handler: deleteMilestone },
];

function milestoneOr404(store: Store, text: string | undefined): MilestoneRecord {
  const m = findMilestone(store, Number(text));
  if (!m) throw notFound();
  return m;
}

function invalid(field: string, value: unknown): Error {
  return validationFailed({ resource: "Milestone", code: "invalid", field, value });
}

function listMilestones(ctx: RequestContext): Reply {
  const { store, query } = ctx;
  const state = query.get("state") ?? "open";
  const sort = query.get("sort") ?? "due_on";
  const direction = query.get("direction") ?? "asc";
  if (!["open", "closed", "all"].includes(state)) throw invalid("state", state);
  if (!["due_on", "completeness"].includes(sort)) throw invalid("sort", sort);
  if (!["asc", "desc"].includes(direction)) throw invalid("direction", direction);
  const done = (m: MilestoneRecord): number => {
    const issues = store.issues.filter((i) => i.milestone === m.number);
    return issues.length === 0
      ? 0
      : issues.filter((i) => i.state === "closed").length / issues.length;
  };
  const key = (m: MilestoneRecord): number =>
    sort === "completeness" ? done(m) : (m.dueOn ?? Number.MAX_SAFE_INTEGER);
  const sign = direction === "asc" ? 1 : -1;
  const list = store.milestones
    .filter((m) => state === "all" || m.state === state)
    .sort((a, b) => sign * (key(a) - key(b)) || a.number - b.number);
  const page = paginate(list, query, `${repoApiUrl(store)}/milestones`);
  return json(
    200,
    page.items.map((m) => renderMilestone(store, m)),
    page.link === undefined ? {} : { link: page.link },
  );
}

function getMilestone(ctx: RequestContext): Reply {
  return json(200, renderMilestone(ctx.store, milestoneOr404(ctx.store, ctx.params.number)));
}

function dueOn(b: Body): number | null | undefined {
  const text = optNullableString(b, "due_on");
  if (text === undefined || text === null) return text;
  const ms = parseTimestamp(text);
  if (ms === undefined) throw invalid("due_on", text);
  // GitHub keeps the Pacific calendar day only (see due-date.ts).
  return normaliseDueOn(ms);
}

function checkTitle(store: Store, title: string, self?: MilestoneRecord): string {
  if (title.trim() === "")
    throw validationFailed({ resource: "Milestone", code: "missing_field", field: "title" });
  const clash = store.milestones.find((m) => m.title === title && m !== self);
  if (clash)
    throw validationFailed({ resource: "Milestone", code: "already_exists", field: "title" });
  return title;
}

function createMilestone(ctx: RequestContext): Reply {
  const { store } = ctx;
  const b = objectBody(ctx.body);
  const title = checkTitle(store, required(b, "title", stringOrInteger));
  const state = optEnum(b, "state", ["open", "closed"] as const, "Milestone") ?? "open";
  const now = store.clock.now();
  const m: MilestoneRecord = {
    id: store.nextId("milestone"),
    number: store.milestones.reduce((max, x) => Math.max(max, x.number), 0) + 1,
    title,
    description: optNullableString(b, "description") ?? null,
    state,
    dueOn: dueOn(b) ?? null,
    creator: ctx.user.login,
    createdAt: now,
    updatedAt: now,
    closedAt: state === "closed" ? now : null,
  };
  store.milestones.push(m);
  return json(201, renderMilestone(store, m), {
    location: `${repoApiUrl(store)}/milestones/${m.number}`,
  });
}

function updateMilestone(ctx: RequestContext): Reply {
  const { store } = ctx;
  const m = milestoneOr404(store, ctx.params.number);
  const b = objectBody(ctx.body);
  const title =
    b.title === undefined ? undefined : checkTitle(store, stringOrInteger(b, "title"), m);
  const state = optEnum(b, "state", ["open", "closed"] as const, "Milestone");
  const description = optNullableString(b, "description");
  const due = dueOn(b);
  if (title !== undefined) m.title = title;
  if (description !== undefined) m.description = description;
  if (due !== undefined) m.dueOn = due;
  if (state !== undefined && state !== null && state !== m.state) {
    m.state = state;
    m.closedAt = state === "closed" ? store.clock.now() : null;
  }
  m.updatedAt = store.clock.now();
  return json(200, renderMilestone(store, m));
}

function deleteMilestone(ctx: RequestContext): Reply {
  const { store } = ctx;
  const m = milestoneOr404(store, ctx.params.number);
  store.milestones = store.milestones.filter((x) => x !== m);
  for (const issue of store.issues) {
    if (issue.milestone === m.number) {
      issue.milestone = null;
      touch(store, issue);
    }
  }
  return noContent();
}
