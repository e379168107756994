import type { AgileModels, Version3Models } from "jira.js";
import type { Account, IssueTypeDef, NamedDef, Site } from "./site.js";
import { visibleEmail } from "./users.js";
import type {
  CommentRecord,
  IssueRecord,
  JiraStore,
  SprintRecord,
  WorklogRecord,
} from "./store.js";
import { statusById, type WorkflowStatus } from "./workflow.js";

/** Platform timestamps: `2021-01-17T12:34:00.000+0000` (offset without a colon). */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace("Z", "+0000");
}

/** Agile timestamps: `2015-04-11T15:22:00.000+00:00` (offset with a colon). */
function formatAgileTime(ms: number): string {
  return new Date(ms).toISOString().replace("Z", "+00:00");
}

const API = "/rest/api/3";

function avatars(origin: string, id: string): Version3Models.AvatarUrls {
  const url = `${origin}/_sandbox/avatar/${encodeURIComponent(id)}.png`;
  return { "16x16": url, "24x24": url, "32x32": url, "48x48": url };
}

export function renderUser(origin: string, account: Account): Version3Models.User {
  const user: Version3Models.User = {
    self: `${origin}${API}/user?accountId=${encodeURIComponent(account.accountId)}`,
    accountId: account.accountId,
    accountType: "atlassian",
    avatarUrls: avatars(origin, account.accountId),
    displayName: account.displayName,
    active: account.active,
    timeZone: "UTC",
    locale: "en_US",
  };
  const email = visibleEmail(account);
  if (email !== undefined) user.emailAddress = email;
  return user;
}

const CATEGORIES: Record<WorkflowStatus["category"], Version3Models.StatusCategory> = {
  new: { id: 2, key: "new", colorName: "blue-gray", name: "To Do" },
  indeterminate: { id: 4, key: "indeterminate", colorName: "yellow", name: "In Progress" },
  done: { id: 3, key: "done", colorName: "green", name: "Done" },
};

export function renderStatus(origin: string, status: WorkflowStatus): Version3Models.StatusDetails {
  const category = CATEGORIES[status.category];
  return {
    self: `${origin}${API}/status/${status.id}`,
    description: "",
    iconUrl: `${origin}/_sandbox/status.png`,
    name: status.name,
    id: status.id,
    statusCategory: { ...category, self: `${origin}${API}/statuscategory/${category.id ?? ""}` },
  };
}

export function renderIssueType(origin: string, t: IssueTypeDef): Version3Models.IssueTypeDetails {
  return {
    self: `${origin}${API}/issuetype/${t.id}`,
    id: t.id,
    description: t.description,
    iconUrl: `${origin}/_sandbox/issuetype/${t.id}.png`,
    name: t.name,
    subtask: t.subtask,
    avatarId: Number(t.id),
    hierarchyLevel: t.hierarchyLevel,
  };
}

export function renderPriority(origin: string, p: NamedDef, site: Site): Version3Models.Priority {
  return {
    self: `${origin}${API}/priority/${p.id}`,
    iconUrl: `${origin}/_sandbox/priority/${p.id}.svg`,
    name: p.name,
    id: p.id,
    description: p.description,
    statusColor: "#cccccc",
    isDefault: p.id === site.defaultPriorityId,
  };
}

export function renderResolution(origin: string, r: NamedDef): Version3Models.Resolution {
  return {
    self: `${origin}${API}/resolution/${r.id}`,
    id: r.id,
    name: r.name,
    description: r.description,
  };
}

export function renderProjectRef(origin: string, site: Site): Version3Models.Project {
  return {
    self: `${origin}${API}/project/${site.project.id}`,
    id: site.project.id,
    key: site.project.key,
    name: site.project.name,
    projectTypeKey: "software",
    simplified: false,
    avatarUrls: avatars(origin, site.project.key),
    lead: renderUser(origin, site.admin),
  };
}

/** A sprint as the Agile API returns it. */
export function renderSprint(origin: string, s: SprintRecord): AgileModels.Sprint {
  const sprint: AgileModels.Sprint = {
    id: s.id,
    self: `${origin}/rest/agile/1.0/sprint/${s.id}`,
    state: s.state,
    name: s.name,
    createdDate: formatAgileTime(s.createdDate),
    originBoardId: s.boardId,
    goal: s.goal,
  };
  if (s.startDate !== undefined) sprint.startDate = formatAgileTime(s.startDate);
  if (s.endDate !== undefined) sprint.endDate = formatAgileTime(s.endDate);
  if (s.completeDate !== undefined) sprint.completeDate = formatAgileTime(s.completeDate);
  return sprint;
}

/** The value of the sprint custom field on an issue: sprint objects, or null. */
export function renderSprintField(store: JiraStore, issue: IssueRecord): unknown[] | null {
  const sprints = issue.sprintIds.flatMap((id) => store.findSprint(id) ?? []);
  if (sprints.length === 0) return null;
  return sprints.map((s) => ({
    id: s.id,
    name: s.name,
    state: s.state,
    boardId: s.boardId,
    goal: s.goal,
    ...(s.startDate === undefined ? {} : { startDate: formatAgileTime(s.startDate) }),
    ...(s.endDate === undefined ? {} : { endDate: formatAgileTime(s.endDate) }),
    ...(s.completeDate === undefined ? {} : { completeDate: formatAgileTime(s.completeDate) }),
  }));
}

/**
 * A comment's or worklog's author: Atlassian's `UserDetails`, which has no `locale` (nor
 * `groups`, `applicationRoles`), unlike the full `User`.
 */
function accountOrNull(origin: string, site: Site, id: string | null): Version3Models.User | null {
  if (id === null) return null;
  const account =
    id === site.admin.accountId ? site.admin : site.users.find((u) => u.accountId === id);
  if (account === undefined) return null;
  const { locale: _locale, ...details } = renderUser(origin, account);
  return details;
}

export function renderComment(
  origin: string,
  site: Site,
  issue: IssueRecord,
  c: CommentRecord,
): Version3Models.Comment {
  const author = accountOrNull(origin, site, c.authorId) ?? undefined;
  const comment: Version3Models.Comment = {
    self: `${origin}${API}/issue/${issue.id}/comment/${c.id}`,
    id: String(c.id),
    body: c.body as Version3Models.Document,
    created: formatTime(c.created),
    updated: formatTime(c.updated),
    jsdPublic: true,
  };
  if (author !== undefined) {
    comment.author = author;
    comment.updateAuthor = author;
  }
  return comment;
}

export function renderWorklog(
  origin: string,
  site: Site,
  issue: IssueRecord,
  w: WorklogRecord,
): Version3Models.Worklog {
  const author = accountOrNull(origin, site, w.authorId) ?? undefined;
  const worklog: Version3Models.Worklog = {
    self: `${origin}${API}/issue/${issue.id}/worklog/${w.id}`,
    id: String(w.id),
    issueId: String(issue.id),
    created: formatTime(w.created),
    updated: formatTime(w.updated),
    started: formatTime(w.started),
    timeSpent: formatDuration(w.timeSpentSeconds),
    timeSpentSeconds: w.timeSpentSeconds,
  };
  if (author !== undefined) {
    worklog.author = author;
    worklog.updateAuthor = author;
  }
  if (w.comment !== undefined) worklog.comment = w.comment as Version3Models.Document;
  return worklog;
}

/** Jira's duration text: `1w 2d 3h 20m` with 8-hour days and 5-day weeks. */
function formatDuration(seconds: number): string {
  const units: [string, number][] = [
    ["w", 144_000],
    ["d", 28_800],
    ["h", 3600],
    ["m", 60],
  ];
  let rest = Math.floor(seconds);
  const parts: string[] = [];
  for (const [unit, size] of units) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.length > 0 ? parts.join(" ") : "0m";
}

export function statusOf(site: Site, issue: IssueRecord): WorkflowStatus {
  return (
    statusById(site.workflow, issue.statusId) ?? {
      id: issue.statusId,
      name: "Unknown",
      category: "new",
    }
  );
}
