/**
 * What reports show beside an item's changes: the fields a create writes (status, labels,
 * assignees, milestone or sprint, estimate, parent…) and the links to the item on each side.
 */
import type { WorkItem, WorkItemFieldName } from "../core/model.js";
import type { ReportLinks, ReportValue, ReportWrite } from "../report/types.js";
import type { SyncEvent } from "./events.js";
import type { CreateAction, PlanAction } from "./plan/plan-types.js";
import { normalizeField } from "./plan/snapshot.js";

/** The fields a create lists, in this order (the title heads the row, the description has its diff). */
const CREATE_FIELDS: readonly WorkItemFieldName[] = [
  "status",
  "priority",
  "labels",
  "assignees",
  "iteration",
  "estimate",
];

/** What the target calls an iteration: a GitHub milestone, a Jira sprint. */
function iterationName(side: "tinypm" | "target", target: string): string {
  if (side === "tinypm") return "iteration";
  return target === "github" ? "milestone" : target === "jira" ? "sprint" : "iteration";
}

/** The `created` events of a run, by `kind:sourceId`. */
export type CreatedIndex = ReadonlyMap<string, Extract<SyncEvent, { type: "created" }>>;

/** Indexes a run's `created` events by the source item they copied. */
export function createdIndex(events: readonly SyncEvent[]): CreatedIndex {
  const out = new Map<string, Extract<SyncEvent, { type: "created" }>>();
  for (const e of events) if (e.type === "created") out.set(`${e.kind}:${e.sourceId}`, e);
  return out;
}

/** Story titles by `side:id`, so that a created task can name the story it goes under. */
export function storyTitlesBySide(actions: readonly PlanAction[]): Map<string, string> {
  const titles = new Map<string, string>();
  for (const a of actions) {
    if (a.kind !== "story") continue;
    if (a.type === "create") {
      const sourceSide = a.toSide === "target" ? "tinypm" : "target";
      titles.set(`${sourceSide}:${a.source.id}`, a.title);
    } else if (a.type === "update" || a.type === "delete") {
      titles.set(`tinypm:${a.link.tinypmId}`, a.title);
      titles.set(`target:${a.link.targetId}`, a.title);
    } else if (a.type === "adopt") {
      titles.set(`tinypm:${a.tinypmItem.id}`, a.title);
      titles.set(`target:${a.targetItem.id}`, a.title);
    } else {
      if (a.tinypmId !== undefined) titles.set(`tinypm:${a.tinypmId}`, a.title);
      if (a.targetId !== undefined) titles.set(`target:${a.targetId}`, a.title);
    }
  }
  return titles;
}

/**
 * What a create writes, field by field, in the written side's terms (the mapped draft): only the
 * fields it sets, then a task's story by title (by id when the plan does not name it).
 */
export function createWrites(
  action: CreateAction,
  target: string,
  titles: ReadonlyMap<string, string>,
): ReportWrite[] {
  const out: ReportWrite[] = [];
  for (const field of CREATE_FIELDS) {
    const v = normalizeField(field, action.draft[field]);
    if (v === undefined || (Array.isArray(v) && v.length === 0)) continue;
    const name = field === "iteration" ? iterationName(action.toSide, target) : field;
    out.push({ field: name, value: v as ReportValue });
  }
  if (action.kind === "task" && action.parentSourceId !== undefined) {
    const sourceSide = action.toSide === "target" ? "tinypm" : "target";
    const title = titles.get(`${sourceSide}:${action.parentSourceId}`);
    out.push({ field: "parent", value: title ?? `#${action.parentSourceId}` });
  }
  return out;
}

/** Links without empty sides; undefined when neither side has one. */
function links(tinypm: string | undefined, target: string | undefined): ReportLinks | undefined {
  if (tinypm === undefined && target === undefined) return undefined;
  return {
    ...(tinypm !== undefined && { tinypm }),
    ...(target !== undefined && { target }),
  };
}

/**
 * The pages of a create's item: the source's (read this run) and the copy's (from its `created`
 * event; none in a dry run, where nothing was made).
 */
export function createLinks(action: CreateAction, created: CreatedIndex): ReportLinks | undefined {
  const made = created.get(`${action.kind}:${action.source.id}`)?.url;
  return action.toSide === "target"
    ? links(action.source.url, made)
    : links(made, action.source.url);
}

/** The pages of a linked pair, as read this run. */
export function pairLinks(tinypm: WorkItem, target: WorkItem): ReportLinks | undefined {
  return links(tinypm.url, target.url);
}
