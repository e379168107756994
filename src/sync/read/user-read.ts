/**
 * Reads the target's assignable users and matches them to tinyPM's. Where the target charges one
 * read per user for names and public emails (GitHub profiles), those reads are spent only on the
 * target users the cheap rules (user map, login) left unmatched, and only while some tinyPM user
 * is still open: a team whose logins match costs one listing, not one read per person.
 */
import type { UserRef } from "../../core/model.js";
import type { CallOptions, Tracker } from "../../core/tracker.js";
import { matchUsers, type MatchUsersResult } from "../../mapping/user-match.js";
import type { UnmappedPolicy, UserMap } from "../../mapping/users.js";

export interface ReadUsersOptions {
  readonly tinypmUsers: readonly UserRef[];
  readonly target: Pick<Tracker, "listUsers" | "describeUsers">;
  readonly userMap?: UserMap | undefined;
  readonly policy?: UnmappedPolicy | undefined;
  /** Runs each target read (the caller paces and retries it). */
  readonly read: <T>(name: string, run: (o: CallOptions) => Promise<T>) => Promise<T>;
}

export interface ReadUsersResult {
  /** The assignable target users, completed where a profile was read. */
  readonly targetUsers: readonly UserRef[];
  readonly result: MatchUsersResult;
  /** How many target users' profiles were read (GitHub: one read each). */
  readonly described: number;
}

const id = (u: UserRef): string => u.id ?? u.login ?? "";

/** Lists, matches, and completes only the users still needed (see the module comment). */
export async function readAndMatchUsers(o: ReadUsersOptions): Promise<ReadUsersResult> {
  const match = (targetUsers: readonly UserRef[]): MatchUsersResult =>
    matchUsers({ tinypmUsers: o.tinypmUsers, targetUsers, userMap: o.userMap, policy: o.policy });
  const listed = await o.read("list target users", (c) => o.target.listUsers(c));
  const first = match(listed);
  const describe = o.target.describeUsers;
  if (describe === undefined || first.unmapped.length === 0)
    return { targetUsers: listed, result: first, described: 0 };
  const taken = new Set(
    first.matches.filter((m) => m.how !== "placeholder").map((m) => id(m.target)),
  );
  const open = listed.filter((u) => !taken.has(id(u)));
  if (open.length === 0) return { targetUsers: listed, result: first, described: 0 };
  const completed = await o.read("read target user profiles", (c) =>
    describe.call(o.target, open, c),
  );
  const byId = new Map(completed.map((u) => [id(u), u]));
  const targetUsers = listed.map((u) => byId.get(id(u)) ?? u);
  return { targetUsers, result: match(targetUsers), described: open.length };
}
