/** The repository's assignable users, and what their public profiles show. */
import { z } from "zod";
import type { UserRef } from "../../core/model.js";
import type { GithubContext } from "./context.js";
import { listAssignees } from "./reads.js";
import { fetchOne, parse } from "./requests.js";

/**
 * Profiles read per call at most: one read each, so a large organisation does not spend its
 * hourly budget on names; past this the users are known by login only (the user map covers them).
 */
const MAX_PROFILE_READS = 200;

const profileSchema = z.object({
  login: z.string(),
  name: z.string().nullish(),
  email: z.string().nullish(),
});

/**
 * Every user who may be assigned issues (`GET /repos/{o}/{r}/assignees`), by login only: their
 * profiles cost one read each, so the caller asks for them (`describeUsers`) only for the users
 * the user map and the login rule left unmatched.
 */
export function listAssignableUsers(ctx: GithubContext, signal?: AbortSignal): Promise<UserRef[]> {
  return listAssignees(ctx, signal);
}

/**
 * Completes each user with the display name and public email of `GET /users/{login}` (GitHub
 * shows `email: null` unless the user made an address public), same order.
 */
export async function describeGithubUsers(
  ctx: GithubContext,
  users: readonly UserRef[],
  signal?: AbortSignal,
): Promise<UserRef[]> {
  const out: UserRef[] = [];
  for (const [i, user] of users.entries()) {
    if (i >= MAX_PROFILE_READS || user.login === undefined) {
      out.push(user);
      continue;
    }
    const operation = "users.getByUsername";
    const res = await fetchOne(ctx, {
      method: "GET",
      url: "/users/{username}",
      params: { username: user.login },
      operation,
      id: user.login,
      signal,
    });
    const p = parse(profileSchema, res.data, { operation, id: user.login });
    const name = p.name?.trim();
    const email = p.email?.trim();
    out.push({
      ...user,
      ...(name !== undefined && name !== "" && { name }),
      ...(email !== undefined && email !== "" && { email }),
    });
  }
  return out;
}
