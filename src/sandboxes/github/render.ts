import type { components } from "@octokit/openapi-types";
import { isoSeconds } from "./clock.js";
import {
  findIssueById,
  findMilestone,
  findUser,
  type CommentRecord,
  type IssueRecord,
  type LabelRecord,
  type MilestoneRecord,
  type Store,
  type UserRecord,
} from "./store.js";

/**
 * Response bodies, typed with GitHub's own OpenAPI schema (`@octokit/openapi-types`) so that the
 * compiler checks every field against it.
 */
type Schemas = components["schemas"];
export type IssueBody = Schemas["issue"];
type LabelBody = Schemas["label"];
type MilestoneBody = Schemas["milestone"];
type CommentBody = Schemas["issue-comment"];
type SimpleUserBody = Schemas["simple-user"];

/** API versions the sandbox serves (2022-11-28 is the default when no header is sent). */
export type ApiVersion = "2022-11-28" | "2026-03-10";

/** GitHub-style node id of a REST object (`I_kwDO…` for issues). */
export const nodeId = (prefix: string, id: number): string =>
  `${prefix}_kwDO${Buffer.from(`${prefix}${id}`).toString("base64url")}`;

export const repoApiUrl = (s: Store): string => `${s.origin}/repos/${s.owner.login}/${s.repoName}`;
const repoHtmlUrl = (s: Store): string => `${s.origin}/${s.owner.login}/${s.repoName}`;

export function renderUser(s: Store, user: UserRecord): SimpleUserBody {
  const url = `${s.origin}/users/${user.login}`;
  return {
    login: user.login,
    id: user.id,
    node_id: nodeId(user.type === "User" ? "U" : "O", user.id),
    avatar_url: `${s.origin}/avatars/u/${user.id}?v=4`,
    gravatar_id: "",
    url,
    html_url: `${s.origin}/${user.login}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type: user.type,
    user_view_type: "public",
    site_admin: false,
  };
}

export function userByLogin(s: Store, login: string): SimpleUserBody {
  const user = findUser(s, login) ?? { login, id: 0, type: "User" as const };
  return renderUser(s, user);
}

export function renderLabel(s: Store, label: LabelRecord): LabelBody {
  return {
    id: label.id,
    node_id: nodeId("LA", label.id),
    url: `${repoApiUrl(s)}/labels/${encodeURIComponent(label.name)}`,
    name: label.name,
    color: label.color,
    default: label.isDefault,
    description: label.description,
  };
}

export function renderMilestone(s: Store, m: MilestoneRecord): MilestoneBody {
  const issues = s.issues.filter((i) => i.milestone === m.number);
  return {
    url: `${repoApiUrl(s)}/milestones/${m.number}`,
    html_url: `${repoHtmlUrl(s)}/milestone/${m.number}`,
    labels_url: `${repoApiUrl(s)}/milestones/${m.number}/labels`,
    id: m.id,
    node_id: nodeId("MI", m.id),
    number: m.number,
    title: m.title,
    description: m.description,
    creator: userByLogin(s, m.creator),
    open_issues: issues.filter((i) => i.state === "open").length,
    closed_issues: issues.filter((i) => i.state === "closed").length,
    state: m.state,
    created_at: isoSeconds(m.createdAt),
    updated_at: isoSeconds(m.updatedAt),
    due_on: m.dueOn === null ? null : isoSeconds(m.dueOn),
    closed_at: m.closedAt === null ? null : isoSeconds(m.closedAt),
  };
}

export function renderComment(s: Store, c: CommentRecord): CommentBody {
  return {
    url: `${repoApiUrl(s)}/issues/comments/${c.id}`,
    html_url: `${repoHtmlUrl(s)}/issues/${c.issueNumber}#issuecomment-${c.id}`,
    issue_url: `${repoApiUrl(s)}/issues/${c.issueNumber}`,
    id: c.id,
    node_id: nodeId("IC", c.id),
    user: userByLogin(s, c.user),
    created_at: isoSeconds(c.createdAt),
    updated_at: isoSeconds(c.updatedAt),
    author_association: authorAssociation(s, c.user),
    body: c.body,
    reactions: reactions(`${repoApiUrl(s)}/issues/comments/${c.id}/reactions`),
    performed_via_github_app: null,
  };
}

function authorAssociation(s: Store, login: string): Schemas["author-association"] {
  return s.collaborators.some((c) => c.toLowerCase() === login.toLowerCase())
    ? "COLLABORATOR"
    : "NONE";
}

function reactions(url: string): Schemas["reaction-rollup"] {
  return {
    url,
    total_count: 0,
    "+1": 0,
    "-1": 0,
    laugh: 0,
    hooray: 0,
    confused: 0,
    heart: 0,
    rocket: 0,
    eyes: 0,
  };
}

function subIssuesSummary(s: Store, issue: IssueRecord): Schemas["sub-issues-summary"] {
  const children = issue.subIssues.map((id) => findIssueById(s, id));
  const total = children.length;
  const completed = children.filter((c) => c?.state === "closed").length;
  return {
    total,
    completed,
    percent_completed: total === 0 ? 0 : Math.floor((completed * 100) / total),
  };
}

/** An issue as GitHub renders it; with API version 2026-03-10 the singular `assignee` is gone. */
export function renderIssue(
  s: Store,
  issue: IssueRecord,
  version: ApiVersion = "2022-11-28",
): IssueBody | Omit<IssueBody, "assignee"> {
  const url = `${repoApiUrl(s)}/issues/${issue.number}`;
  const milestone = issue.milestone === null ? undefined : findMilestone(s, issue.milestone);
  const parent = issue.parentId === null ? undefined : findIssueById(s, issue.parentId);
  const assignees = issue.assignees.map((login) => userByLogin(s, login));
  const body: IssueBody = {
    url,
    repository_url: repoApiUrl(s),
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: `${repoHtmlUrl(s)}/issues/${issue.number}`,
    id: issue.id,
    node_id: nodeId("I", issue.id),
    number: issue.number,
    title: issue.title,
    user: userByLogin(s, issue.user),
    labels: issue.labels.flatMap((id) => {
      const label = s.labels.find((l) => l.id === id);
      return label ? [renderLabel(s, label)] : [];
    }),
    state: issue.state,
    locked: issue.locked,
    assignee: assignees[0] ?? null,
    assignees,
    milestone: milestone ? renderMilestone(s, milestone) : null,
    comments: issue.comments,
    created_at: isoSeconds(issue.createdAt),
    updated_at: isoSeconds(issue.updatedAt),
    closed_at: issue.closedAt === null ? null : isoSeconds(issue.closedAt),
    author_association: authorAssociation(s, issue.user),
    active_lock_reason: issue.lockReason,
    sub_issues_summary: subIssuesSummary(s, issue),
    issue_dependencies_summary: {
      blocked_by: 0,
      blocking: 0,
      total_blocked_by: 0,
      total_blocking: 0,
    },
    body: issue.body,
    closed_by: issue.closedBy === null ? null : userByLogin(s, issue.closedBy),
    reactions: reactions(`${url}/reactions`),
    timeline_url: `${url}/timeline`,
    performed_via_github_app: null,
    state_reason: issue.stateReason,
    parent_issue_url: parent ? `${repoApiUrl(s)}/issues/${parent.number}` : null,
  };
  if (version === "2022-11-28") return body;
  const { assignee: _omitted, ...rest } = body;
  return rest;
}
