/**
 * The sandbox's people, as GitHub treats them: a public profile whose `email` is `null` unless the
 * user made one public, and repository access that decides who may be assigned (collaborators).
 */
import type { components } from "@octokit/openapi-types";
import { isoSeconds } from "./clock.js";
import { renderUser } from "./render.js";
import type { Store, UserRecord } from "./store.js";

/** One user of the sandbox; a bare string is `{ login }` (a collaborator without public email). */
export interface GithubSandboxUser {
  readonly login: string;
  /** The profile's display name. @default null */
  readonly name?: string | undefined;
  /** The profile's public email; GitHub shows `null` for everyone who set none. @default null */
  readonly publicEmail?: string | undefined;
  /** Push access to the repository: only collaborators can be assigned. @default true */
  readonly collaborator?: boolean | undefined;
}

/** Normalised user entries, checked: logins GitHub would accept, no duplicates. */
export function sandboxUsers(
  entries: readonly (string | GithubSandboxUser)[],
): GithubSandboxUser[] {
  const seen = new Set<string>();
  return entries.map((entry) => {
    const u = typeof entry === "string" ? { login: entry } : entry;
    if (!/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/.test(u.login))
      throw new Error(`GitHub sandbox user "${u.login}" is not a valid login`);
    if (seen.has(u.login.toLowerCase()))
      throw new Error(`GitHub sandbox user "${u.login}" is listed twice`);
    seen.add(u.login.toLowerCase());
    return u;
  });
}

type PublicUser = components["schemas"]["public-user"];

/** `GET /users/{login}`: the public profile; `email` only when the user made it public. */
export function renderProfile(s: Store, user: UserRecord): PublicUser {
  return {
    ...renderUser(s, user),
    name: user.name ?? null,
    company: null,
    blog: "",
    location: null,
    email: user.publicEmail ?? null,
    hireable: null,
    bio: null,
    public_repos: 0,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: isoSeconds(s.repoCreatedAt),
    updated_at: isoSeconds(s.repoCreatedAt),
  };
}
