/** The repository's assignable users, with what their public profiles show. */
import { z } from "zod";
import type { UserRef } from "../../core/model.js";
import { fetchOne, listAssignees, parse, type GithubContext } from "./reads.js";

/**
 * Profiles read per listing at most: one read each, so a large organisation does not spend its
 * hourly budget on names; past this the users are known by login only (the user map covers them).
 */
export const MAX_PROFILE_READS = 200;

const profileSchema = z.object({
  login: z.string(),
  name: z.string().nullish(),
  email: z.string().nullish(),
});

/**
 * Every user who may be assigned issues (`GET /repos/{o}/{r}/assignees`), each completed with the
 * display name and public email of `GET /users/{login}` (GitHub shows `email: null` unless the
 * user made an address public, so most users match by login or the user map).
 */
export async function listAssignableUsers(
  ctx: GithubContext,
  signal?: AbortSignal,
): Promise<UserRef[]> {
  const assignees = await listAssignees(ctx, signal);
  const out: UserRef[] = [];
  for (const [i, user] of assignees.entries()) {
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
