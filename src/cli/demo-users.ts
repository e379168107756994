/**
 * The demo's user map: the people the automatic rules cannot match on the sandbox (the Jira
 * sandbox hides the emails of bob, dave and frank, as most Jira profiles do) are mapped to the
 * accounts the demo created for them, as a user would after `tinypm-sync users --write`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Tracker } from "../core/tracker.js";
import type { MatchUsersResult } from "../mapping/user-match.js";
import { parseUserMap, type UserMap } from "../mapping/users.js";
import { readAndMatchUsers } from "../sync/read/user-read.js";

export interface DemoUsers {
  /** The user map written, and the tinyPM logins it maps; absent when every user matched. */
  readonly map?: { readonly file: string; readonly users: readonly string[] } | undefined;
  /** The match with the map: `6 of 6 tinyPM users match a Jira account (email 3, map-file 3)`. */
  readonly line: string;
}

/**
 * Writes `users.yaml` into `dir` for the tinyPM users no rule matches and whom `accounts` (tinyPM
 * login → the sandbox account made for them) knows (none when everyone matches already), and
 * says how everyone matches then.
 */
export async function writeDemoUserMap(o: {
  readonly dir: string;
  readonly tinypm: Pick<Tracker, "listUsers">;
  readonly target: Pick<Tracker, "listUsers" | "describeUsers">;
  readonly accounts: ReadonlyMap<string, string>;
  readonly targetName: string;
}): Promise<DemoUsers> {
  const tinypmUsers = await o.tinypm.listUsers();
  const match = (userMap?: UserMap) =>
    readAndMatchUsers({ tinypmUsers, target: o.target, userMap, read: (_name, run) => run({}) });
  const { result } = await match();
  const entries = result.unmapped.flatMap((u) => {
    const account = u.login === undefined ? undefined : o.accounts.get(u.login);
    return u.login === undefined || account === undefined ? [] : [[u.login, account] as const];
  });
  if (entries.length === 0) return { line: summary(result, tinypmUsers.length, o.targetName) };
  const text = [
    "# Written by `tinypm-sync demo`: these users have no visible email and no equal login or",
    `# display name on the ${o.targetName} sandbox, so only a user map can match them.`,
    "users:",
    ...entries.map(([login, account]) => `  ${login}: ${account}`),
    "",
  ].join("\n");
  const file = join(o.dir, "users.yaml");
  const map = parseUserMap(text, file); // what we write must load as written
  writeFileSync(file, text);
  const withMap = (await match(map)).result;
  return {
    map: { file, users: entries.map(([login]) => login) },
    line: summary(withMap, tinypmUsers.length, o.targetName),
  };
}

function summary(result: MatchUsersResult, total: number, target: string): string {
  const byHow = new Map<string, number>();
  for (const m of result.matches) byHow.set(m.how, (byHow.get(m.how) ?? 0) + 1);
  const how = [...byHow].map(([h, n]) => `${h} ${n}`).join(", ");
  const open = result.unmapped.map((u) => u.login ?? u.name ?? "?");
  return `Users: ${result.matches.length} of ${total} tinyPM users match a ${target} account${how === "" ? "" : ` (${how})`}${open.length === 0 ? "" : `; unmatched: ${open.join(", ")}`}`;
}
