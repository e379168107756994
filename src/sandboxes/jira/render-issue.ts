import type { Version3Models } from "jira.js";
import {
  formatTime,
  renderComment,
  renderIssueType,
  renderPriority,
  renderProjectRef,
  renderResolution,
  renderSprintField,
  renderStatus,
  renderUser,
  renderWorklog,
  statusOf,
} from "./render.js";
import { fieldList } from "./fields.js";
import { renderIssueLinks } from "./routes-links.js";
import { findAccount, type Site } from "./site.js";
import type { IssueRecord, JiraStore } from "./store.js";

/** Which fields to return: `*all`, `*navigable`, names, `-name` exclusions (Jira's `fields`). */
interface FieldSelection {
  readonly all: boolean;
  readonly include: ReadonlySet<string>;
  readonly exclude: ReadonlySet<string>;
}

/** Parses a `fields` parameter (comma string or array); `fallback` applies when it is empty. */
export function parseFieldSelection(raw: unknown, fallback: string): FieldSelection {
  const items = (
    Array.isArray(raw) ? raw.map(String) : typeof raw === "string" ? raw.split(",") : []
  )
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const list = items.length > 0 ? items : fallback.split(",");
  const include = new Set(list.filter((s) => !s.startsWith("-")));
  const exclude = new Set(list.filter((s) => s.startsWith("-")).map((s) => s.slice(1)));
  return { all: include.has("*all") || include.has("*navigable"), include, exclude };
}

/** Whether a selection asks for nothing but `id`/`key` (search pages can then be large). */
export function onlyIdOrKey(selection: FieldSelection): boolean {
  return !selection.all && [...selection.include].every((f) => f === "id" || f === "key");
}

type FieldRenderer = (ctx: { origin: string; store: JiraStore; issue: IssueRecord }) => unknown;

function systemFields(site: Site): Record<string, FieldRenderer> {
  return {
    summary: ({ issue }) => issue.summary,
    description: ({ issue }) => issue.description,
    issuetype: ({ origin, issue }) => {
      const type = site.issueTypes.find((t) => t.id === issue.issueTypeId);
      return type === undefined ? null : renderIssueType(origin, type);
    },
    project: ({ origin }) => renderProjectRef(origin, site),
    status: ({ origin, issue }) => renderStatus(origin, statusOf(site, issue)),
    statuscategorychangedate: ({ issue }) => formatTime(issue.statusChangedAt),
    priority: ({ origin, issue }) => {
      const p = site.priorities.find((x) => x.id === issue.priorityId);
      return p === undefined ? null : renderPriority(origin, p, site);
    },
    labels: ({ issue }) => [...issue.labels],
    assignee: ({ origin, issue }) => userOrNull(origin, site, issue.assigneeId),
    reporter: ({ origin, issue }) => userOrNull(origin, site, issue.reporterId),
    creator: ({ origin, issue }) => userOrNull(origin, site, issue.creatorId),
    created: ({ issue }) => formatTime(issue.created),
    updated: ({ issue }) => formatTime(issue.updated),
    resolution: ({ origin, issue }) => {
      const r = site.resolutions.find((x) => x.id === issue.resolutionId);
      return r === undefined ? null : renderResolution(origin, r);
    },
    resolutiondate: ({ issue }) =>
      issue.resolutionDate === null ? null : formatTime(issue.resolutionDate),
    duedate: ({ issue }) => issue.duedate,
    parent: ({ origin, store, issue }) => {
      const parent = issue.parentId === null ? undefined : store.findIssue(String(issue.parentId));
      return parent === undefined ? undefined : issueRef(origin, site, parent);
    },
    subtasks: ({ origin, store, issue }) =>
      store
        .children(issue.id)
        .filter((c) => site.issueTypes.find((t) => t.id === c.issueTypeId)?.subtask === true)
        .map((c) => issueRef(origin, site, c)),
    issuelinks: ({ origin, store, issue }) => renderIssueLinks(origin, store, issue),
    comment: ({ origin, issue }) => ({
      comments: issue.comments.map((c) => renderComment(origin, site, issue, c)),
      self: `${origin}/rest/api/3/issue/${issue.id}/comment`,
      maxResults: issue.comments.length,
      total: issue.comments.length,
      startAt: 0,
    }),
    // Jira embeds at most 20 worklogs in an issue; the rest must be paged from /worklog.
    worklog: ({ origin, issue }) => ({
      startAt: 0,
      maxResults: 20,
      total: issue.worklogs.length,
      worklogs: issue.worklogs.slice(0, 20).map((w) => renderWorklog(origin, site, issue, w)),
    }),
    timespent: ({ issue }) => sumWorklogs(issue),
    [site.storyPointsFieldId]: ({ issue }) => issue.storyPoints,
    [site.sprintFieldId]: ({ store, issue }) => renderSprintField(store, issue),
    [site.otherEstimateFieldId]: () => null,
  };
}

function sumWorklogs(issue: IssueRecord): number | null {
  return issue.worklogs.length === 0
    ? null
    : issue.worklogs.reduce((n, w) => n + w.timeSpentSeconds, 0);
}

function userOrNull(origin: string, site: Site, id: string | null): Version3Models.User | null {
  const account = id === null ? undefined : findAccount(site, id);
  return account === undefined ? null : renderUser(origin, account);
}

/** A compact issue reference (`parent`, `subtasks`). */
function issueRef(origin: string, site: Site, issue: IssueRecord): Version3Models.Issue {
  const type = site.issueTypes.find((t) => t.id === issue.issueTypeId);
  const p = site.priorities.find((x) => x.id === issue.priorityId);
  const fields: Record<string, unknown> = {
    summary: issue.summary,
    status: renderStatus(origin, statusOf(site, issue)),
    priority: p === undefined ? null : renderPriority(origin, p, site),
    issuetype: type === undefined ? null : renderIssueType(origin, type),
  };
  return {
    id: String(issue.id),
    key: issue.key,
    self: `${origin}/rest/api/3/issue/${issue.id}`,
    fields: fields as Version3Models.Fields,
  };
}

interface RenderIssueOptions {
  readonly fields: FieldSelection;
  /** Entity property keys to include (`properties` parameter). */
  readonly properties?: readonly string[] | undefined;
  /** The search default returns only `id`. */
  readonly idOnlyWhenEmpty?: boolean;
}

/** Renders an issue with the selected fields. */
export function renderIssue(
  origin: string,
  store: JiraStore,
  issue: IssueRecord,
  options: RenderIssueOptions,
): Version3Models.Issue {
  const renderers = systemFields(store.site);
  const { fields: sel } = options;
  const fields: Record<string, unknown> = {};
  for (const [name, render] of Object.entries(renderers)) {
    if (sel.exclude.has(name)) continue;
    if (!sel.all && !sel.include.has(name)) continue;
    const value = render({ origin, store, issue });
    if (value !== undefined) fields[name] = value;
  }
  const result: Version3Models.Issue = {
    expand: "renderedFields,names,schema,operations,editmeta,changelog,versionedRepresentations",
    id: String(issue.id),
    self: `${origin}/rest/api/3/issue/${issue.id}`,
    key: issue.key,
    fields: fields as Version3Models.Fields,
  };
  const props = options.properties ?? [];
  if (props.length > 0) {
    result.properties = Object.fromEntries(
      props.filter((k) => issue.properties.has(k)).map((k) => [k, issue.properties.get(k)]),
    );
  }
  return result;
}

/** `expand=names`: display names of the selected fields, keyed by field id. */
export function fieldNames(site: Site, selection: FieldSelection): Record<string, string> {
  return Object.fromEntries(
    fieldList(site)
      .filter(
        (f) =>
          !selection.exclude.has(f.id ?? "") &&
          (selection.all || selection.include.has(f.id ?? "")),
      )
      .map((f) => [f.id ?? "", f.name ?? ""]),
  );
}
