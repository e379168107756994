import type { TokenAccess } from "./access.js";
import type { components } from "@octokit/openapi-types";
import { isoSeconds } from "./clock.js";
import { json, noContent, type Reply, type RequestContext, type RouteDef } from "./context.js";
import { notFound } from "./errors.js";
import { objectBody, optStringList } from "./input.js";
import type { RateLimitOverview } from "./limits.js";
import { issueOr404 } from "./issue-ops.js";
import { paginate } from "./paging.js";
import { renderIssue, renderUser, repoApiUrl } from "./render.js";
import { collaboratorLogin, findUser, MAX_ASSIGNEES, touch, type Store } from "./store.js";
import { renderProfile } from "./users.js";

/** The caller, the repository, the rate-limit overview and assignees. */
export function metaRoutes(rateLimit: (withRate: boolean) => RateLimitOverview): RouteDef[] {
  return [
    { method: "GET", pattern: "/user", handler: getAuthenticatedUser },
    { method: "GET", pattern: "/users/:login", handler: getUser },
    { method: "GET", pattern: "/repos/:owner/:repo", handler: getRepo },
    { method: "GET", pattern: "/repositories/:id", handler: getRepoById },
    {
      method: "GET",
      pattern: "/rate_limit",
      handler: (ctx) => json(200, rateLimit(ctx.apiVersion !== "2026-03-10")),
      resource: "none",
    },
    { method: "GET", pattern: "/repos/:owner/:repo/assignees", handler: listAssignees },
    { method: "GET", pattern: "/repos/:owner/:repo/assignees/:login", handler: checkAssignee },
    {
      method: "POST",
      pattern: "/repos/:owner/:repo/issues/:number/assignees",
      handler: addAssignees,
    },
    {
      method: "DELETE",
      pattern: "/repos/:owner/:repo/issues/:number/assignees",
      handler: removeAssignees,
    },
  ];
}

function getAuthenticatedUser(ctx: RequestContext): Reply {
  return json(200, renderProfile(ctx.store, ctx.user));
}

function getUser(ctx: RequestContext): Reply {
  const user = findUser(ctx.store, ctx.params.login ?? "");
  if (!user) throw notFound();
  return json(200, renderProfile(ctx.store, user));
}

function getRepo(ctx: RequestContext): Reply {
  return json(200, renderRepo(ctx.store, ctx.access));
}

/** `GET /repositories/{id}`: the same repository by its numeric id (link headers use this form). */
function getRepoById(ctx: RequestContext): Reply {
  if (Number(ctx.params.id) !== ctx.store.repoId) throw notFound();
  return json(200, renderRepo(ctx.store, ctx.access));
}

type RepoBody = components["schemas"]["full-repository"];

export function renderRepo(s: Store, access: TokenAccess): RepoBody {
  const api = repoApiUrl(s);
  const html = `${s.origin}/${s.owner.login}/${s.repoName}`;
  const t = isoSeconds(s.repoCreatedAt);
  const u = (suffix: string): string => `${api}/${suffix}`;
  return {
    id: s.repoId,
    node_id: `R_kgDO${s.repoId}`,
    name: s.repoName,
    full_name: `${s.owner.login}/${s.repoName}`,
    owner: renderUser(s, s.owner),
    private: true,
    html_url: html,
    description: "tinypm-sync GitHub sandbox",
    fork: false,
    url: api,
    ...urls(u),
    git_url: `git://127.0.0.1/${s.owner.login}/${s.repoName}.git`,
    ssh_url: `git@127.0.0.1:${s.owner.login}/${s.repoName}.git`,
    clone_url: `${html}.git`,
    svn_url: html,
    mirror_url: null,
    homepage: null,
    language: null,
    forks_count: 0,
    stargazers_count: 0,
    watchers_count: 0,
    size: 0,
    default_branch: "main",
    open_issues_count: s.issues.filter((i) => i.state === "open").length,
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: "private",
    pushed_at: t,
    created_at: t,
    updated_at: t,
    permissions: {
      admin: access === "admin",
      maintain: access === "admin",
      push: access !== "read",
      triage: access !== "read",
      pull: true,
    },
    subscribers_count: 0,
    network_count: 0,
    license: null,
    organization: renderUser(s, s.owner),
    forks: 0,
    open_issues: s.issues.filter((i) => i.state === "open").length,
    watchers: 0,
  };
}

const URL_KEYS = [
  ["archive_url", "{archive_format}{/ref}"],
  ["assignees_url", "assignees{/user}"],
  ["blobs_url", "git/blobs{/sha}"],
  ["branches_url", "branches{/branch}"],
  ["collaborators_url", "collaborators{/collaborator}"],
  ["comments_url", "comments{/number}"],
  ["commits_url", "commits{/sha}"],
  ["compare_url", "compare/{base}...{head}"],
  ["contents_url", "contents/{+path}"],
  ["contributors_url", "contributors"],
  ["deployments_url", "deployments"],
  ["downloads_url", "downloads"],
  ["events_url", "events"],
  ["forks_url", "forks"],
  ["git_commits_url", "git/commits{/sha}"],
  ["git_refs_url", "git/refs{/sha}"],
  ["git_tags_url", "git/tags{/sha}"],
  ["issue_comment_url", "issues/comments{/number}"],
  ["issue_events_url", "issues/events{/number}"],
  ["issues_url", "issues{/number}"],
  ["keys_url", "keys{/key_id}"],
  ["labels_url", "labels{/name}"],
  ["languages_url", "languages"],
  ["merges_url", "merges"],
  ["milestones_url", "milestones{/number}"],
  ["notifications_url", "notifications{?since,all,participating}"],
  ["pulls_url", "pulls{/number}"],
  ["releases_url", "releases{/id}"],
  ["stargazers_url", "stargazers"],
  ["statuses_url", "statuses/{sha}"],
  ["subscribers_url", "subscribers"],
  ["subscription_url", "subscription"],
  ["tags_url", "tags"],
  ["teams_url", "teams"],
  ["trees_url", "git/trees{/sha}"],
  ["hooks_url", "hooks"],
] as const;

type UrlKey = (typeof URL_KEYS)[number][0];

function urls(u: (suffix: string) => string): Record<UrlKey, string> {
  return Object.fromEntries(URL_KEYS.map(([k, v]) => [k, u(v)])) as Record<UrlKey, string>;
}

function listAssignees(ctx: RequestContext): Reply {
  const s = ctx.store;
  const users = s.collaborators.flatMap((login) => {
    const user = findUser(s, login);
    return user ? [renderUser(s, user)] : [];
  });
  const page = paginate(users, ctx.query, `${repoApiUrl(s)}/assignees`);
  return json(200, page.items, page.link === undefined ? {} : { link: page.link });
}

function checkAssignee(ctx: RequestContext): Reply {
  if (collaboratorLogin(ctx.store, ctx.params.login ?? "") === undefined) throw notFound();
  return noContent();
}

/** Adds up to 10 assignees, keeping existing ones; users who cannot be assigned are ignored. */
function addAssignees(ctx: RequestContext): Reply {
  const issue = issueOr404(ctx.store, ctx.params.number);
  const wanted = optStringList(objectBody(ctx.body), "assignees") ?? [];
  const next = [...issue.assignees];
  for (const login of wanted) {
    const known = collaboratorLogin(ctx.store, login);
    if (known !== undefined && !next.includes(known) && next.length < MAX_ASSIGNEES)
      next.push(known);
  }
  if (next.length !== issue.assignees.length) {
    issue.assignees = next;
    touch(ctx.store, issue);
  }
  return json(201, renderIssue(ctx.store, issue, ctx.apiVersion));
}

function removeAssignees(ctx: RequestContext): Reply {
  const issue = issueOr404(ctx.store, ctx.params.number);
  const gone = (optStringList(objectBody(ctx.body), "assignees") ?? []).map((l) => l.toLowerCase());
  const next = issue.assignees.filter((a) => !gone.includes(a.toLowerCase()));
  if (next.length !== issue.assignees.length) {
    issue.assignees = next;
    touch(ctx.store, issue);
  }
  return json(200, renderIssue(ctx.store, issue, ctx.apiVersion));
}
