/**
 * Automatic matching of tinyPM users to target users (pure). The rules run in a fixed order and
 * each match records which rule made it and on what value:
 *
 * 1. the user-map file (`tinyPM login → target id`);
 * 2. the exact visible email, case-insensitive (Jira hides most addresses, GitHub nearly all);
 * 3. a target login equal to the tinyPM email's local part or to the tinyPM login;
 * 4. a unique exact display name (case-insensitive, spaces collapsed).
 *
 * Only the target users passed in can be matched: the caller passes the *assignable* ones (Jira's
 * assignable search for the project, GitHub's assignees), so a match can always be sent. A rule
 * that finds several candidates, or a candidate that several tinyPM users claim, never guesses:
 * the users are reported as ambiguous, with the candidates, and stay unmatched.
 */
import type { UserRef } from "../core/model.js";
import { buildUserTable, type UnmappedPolicy, type UserMap, type UserTable } from "./users.js";

/** How a tinyPM user was matched to a target user. */
export type MatchHow = "map-file" | "email" | "login" | "name" | "placeholder";

export interface UserMatch {
  readonly tinypm: UserRef;
  readonly target: UserRef;
  readonly how: MatchHow;
  /** The value the rule matched on, e.g. `alice@example.com` or `login = the tinyPM email's part before the @`. */
  readonly reason?: string | undefined;
}

/** A tinyPM user a rule could not decide: several candidates, or a candidate shared with others. */
export interface AmbiguousUser {
  readonly tinypm: UserRef;
  readonly rule: Exclude<MatchHow, "map-file" | "placeholder">;
  readonly candidates: readonly UserRef[];
  /** Other tinyPM users that claim the same candidate (shared email or display name). */
  readonly rivals: readonly UserRef[];
}

/** A user-map entry that names no assignable target user (it is ignored, and reported). */
export interface MapFileProblem {
  readonly tinypm: string;
  readonly target: string;
  readonly message: string;
}

export interface MatchUsersOptions {
  readonly tinypmUsers: readonly UserRef[];
  /** Assignable target users: GitHub `{id: login, login, name?, email?}`, Jira `{id: accountId, name, email?}`. */
  readonly targetUsers: readonly UserRef[];
  readonly userMap?: UserMap | undefined;
  /** @default the map file's policy, else "skip" */
  readonly policy?: UnmappedPolicy | undefined;
}

export interface MatchUsersResult {
  readonly table: UserTable;
  /** Real matches, then placeholder ones, in tinyPM order within each. */
  readonly matches: readonly UserMatch[];
  /** tinyPM users with no target account (ambiguous ones included), to list in every report. */
  readonly unmapped: readonly UserRef[];
  readonly ambiguous: readonly AmbiguousUser[];
  readonly problems: readonly MapFileProblem[];
}

const fold = (s: string | undefined): string | undefined => {
  const t = s?.trim().replace(/\s+/g, " ").toLowerCase();
  return t === undefined || t === "" ? undefined : t;
};

const localPart = (email: string | undefined): string | undefined => {
  const e = fold(email);
  const at = e?.lastIndexOf("@") ?? -1;
  return e !== undefined && at > 0 ? e.slice(0, at) : undefined;
};

interface Rule {
  readonly how: AmbiguousUser["rule"];
  /** Whether target `t` fits tinyPM user `u`, and why. */
  readonly test: (u: UserRef, t: UserRef) => string | undefined;
}

const RULES: readonly Rule[] = [
  {
    how: "email",
    test: (u, t) =>
      fold(u.email) !== undefined && fold(u.email) === fold(t.email)
        ? `email ${t.email ?? ""}`
        : undefined,
  },
  {
    how: "login",
    test: (u, t) => {
      const login = fold(t.login);
      if (login === undefined) return undefined;
      if (login === localPart(u.email))
        return `login ${t.login ?? ""} = the tinyPM email's part before the @`;
      return login === fold(u.login) ? `login ${t.login ?? ""} = tinyPM login` : undefined;
    },
  },
  {
    how: "name",
    test: (u, t) =>
      fold(u.name) !== undefined && fold(u.name) === fold(t.name)
        ? `name "${t.name ?? ""}"`
        : undefined,
  },
];

const key = (u: UserRef): string => u.id ?? u.login ?? u.name ?? "";

/**
 * Matches tinyPM users to assignable target users, rule by rule (see the module comment).
 * @example matchUsers({tinypmUsers, targetUsers, userMap, policy: "skip"}).ambiguous
 */
export function matchUsers(options: MatchUsersOptions): MatchUsersResult {
  const policy = options.policy ?? options.userMap?.policy ?? "skip";
  const targets = options.targetUsers;
  const { matched, problems } = mapFileMatches(options.tinypmUsers, targets, options.userMap);
  const taken = new Set(matched.map((m) => key(m.target)));
  let open = options.tinypmUsers.filter((u) => !matched.some((m) => m.tinypm === u));
  const ambiguous: AmbiguousUser[] = [];
  for (const rule of RULES) {
    const free = targets.filter((t) => !taken.has(key(t)));
    const round = applyRule(rule, open, free);
    for (const m of round.matches) taken.add(key(m.target));
    matched.push(...round.matches);
    ambiguous.push(...round.ambiguous);
    const decided = new Set([
      ...round.matches.map((m) => m.tinypm),
      ...round.ambiguous.map((a) => a.tinypm),
    ]);
    open = open.filter((u) => !decided.has(u));
  }
  const order = new Map(options.tinypmUsers.map((u, i) => [u, i]));
  matched.sort((a, b) => (order.get(a.tinypm) ?? 0) - (order.get(b.tinypm) ?? 0));
  const unmapped = options.tinypmUsers.filter((u) => !matched.some((m) => m.tinypm === u));
  const placeholder = placeholderUser(options.userMap, targets, problems);
  const matches: UserMatch[] = [...matched];
  if (policy === "placeholder" && placeholder !== undefined)
    for (const u of unmapped) matches.push({ tinypm: u, target: placeholder, how: "placeholder" });
  return {
    table: buildUserTable({ tinypmUsers: options.tinypmUsers, matches, policy, placeholder }),
    matches,
    unmapped,
    ambiguous,
    problems,
  };
}

/**
 * A target user by id: exactly, else, for GitHub users (who carry a login), regardless of case —
 * GitHub logins are case-insensitive (`Octocat` is `octocat`). Jira accountIds are case-sensitive:
 * compared exactly only.
 */
function findTarget(targets: readonly UserRef[], id: string): UserRef | undefined {
  return (
    targets.find((t) => t.id === id) ??
    targets.find((t) => t.login !== undefined && fold(t.id) === fold(id))
  );
}

/** The tinyPM user a map key names: by exact login, else the one login equal regardless of case. */
function findTinypm(users: readonly UserRef[], login: string): UserRef | undefined {
  const exact = users.find((u) => u.login === login);
  if (exact !== undefined) return exact;
  const folded = users.filter((u) => fold(u.login) === fold(login));
  return folded.length === 1 ? folded[0] : undefined;
}

function mapFileMatches(
  users: readonly UserRef[],
  targets: readonly UserRef[],
  map: UserMap | undefined,
): { matched: UserMatch[]; problems: MapFileProblem[] } {
  const matched: UserMatch[] = [];
  const problems: MapFileProblem[] = [];
  if (map === undefined) return { matched, problems };
  for (const [login, id] of Object.entries(map.users)) {
    const user = findTinypm(users, login);
    const target = findTarget(targets, id);
    if (user === undefined) {
      problems.push({
        tinypm: login,
        target: id,
        message: `no tinyPM user has the login ${login}`,
      });
    } else if (target === undefined) {
      problems.push({
        tinypm: login,
        target: id,
        message: `${id} is not an assignable user of the target (never sent)`,
      });
    } else if (!matched.some((m) => m.tinypm === user)) {
      matched.push({ tinypm: user, target, how: "map-file", reason: `users.${login}: ${id}` });
    }
  }
  return { matched, problems };
}

function placeholderUser(
  map: UserMap | undefined,
  targets: readonly UserRef[],
  problems: MapFileProblem[],
): UserRef | undefined {
  const id = map?.placeholder;
  if (id === undefined) return undefined;
  const found = findTarget(targets, id);
  if (found === undefined)
    problems.push({
      tinypm: "(placeholder)",
      target: id,
      message: `placeholder ${id} is not an assignable user of the target (never sent)`,
    });
  return found;
}

function applyRule(
  rule: Rule,
  open: readonly UserRef[],
  free: readonly UserRef[],
): { matches: UserMatch[]; ambiguous: AmbiguousUser[] } {
  const found = open.map((u) => ({
    u,
    hits: free.flatMap((t) => {
      const reason = rule.test(u, t);
      return reason === undefined ? [] : [{ t, reason }];
    }),
  }));
  const claims = new Map<string, UserRef[]>();
  for (const f of found)
    for (const h of f.hits) claims.set(key(h.t), [...(claims.get(key(h.t)) ?? []), f.u]);
  const matches: UserMatch[] = [];
  const ambiguous: AmbiguousUser[] = [];
  for (const { u, hits } of found) {
    const [only] = hits;
    if (only === undefined) continue;
    const rivals = hits.flatMap((h) => claims.get(key(h.t)) ?? []).filter((r) => r !== u);
    if (hits.length === 1 && rivals.length === 0) {
      matches.push({ tinypm: u, target: only.t, how: rule.how, reason: only.reason });
    } else {
      ambiguous.push({
        tinypm: u,
        rule: rule.how,
        candidates: hits.map((h) => h.t),
        rivals: [...new Set(rivals)],
      });
    }
  }
  return { matches, ambiguous };
}
