/**
 * Users across systems: the user-map file, automatic matching (pure), and the `UserTable` the
 * compiled mapping uses to translate `UserRef`s both ways.
 */
import { z } from "zod";
import { MappingError } from "../core/errors.js";
import type { UserRef } from "../core/model.js";
import { parseYamlWith, readText } from "./load.js";

/** What happens to a tinyPM user with no target account. */
export type UnmappedPolicy = "skip" | "placeholder" | "fail";

/** The user-map file: tinyPM login → GitHub login / Jira accountId, plus the unmapped policy. */
export const userMapSchema = z
  .strictObject({
    $schema: z.string().optional(),
    policy: z
      .enum(["skip", "placeholder", "fail"])
      .optional()
      .describe("Unmapped users: skip them, use `placeholder`, or fail the item. @default skip"),
    placeholder: z
      .string()
      .min(1)
      .optional()
      .describe("Target id used for unmapped users under `placeholder`."),
    users: z
      .record(z.string(), z.string().min(1))
      .describe("tinyPM login → GitHub login or Jira accountId."),
  })
  .describe("A tinypm-sync user map.");
export type UserMap = z.infer<typeof userMapSchema>;

/** Parses a user map from YAML text. @throws MappingError with every problem. */
export function parseUserMap(text: string, file: string): UserMap {
  return parseYamlWith({ text, file, schema: userMapSchema, what: "User map" });
}

/** Reads a user-map file. @throws MappingError */
export function loadUserMap(file: string): UserMap {
  return parseUserMap(readText(file, "User map"), file);
}

/** How a tinyPM user was matched to a target user. */
export type MatchHow = "map-file" | "login" | "email" | "name" | "placeholder";

export interface UserMatch {
  readonly tinypm: UserRef;
  readonly target: UserRef;
  readonly how: MatchHow;
}

/**
 * The precomputed user lookups a compiled mapping uses (no I/O inside the mapping).
 * Keys are tinyPM logins and target ids (GitHub login, Jira accountId).
 */
export interface UserTable {
  readonly policy: UnmappedPolicy;
  /** tinyPM login → target user. */
  readonly toTarget: ReadonlyMap<string, UserRef>;
  /** target id → tinyPM user (full ref: id, login, name, email). */
  readonly toTinypm: ReadonlyMap<string, UserRef>;
  /** Every tinyPM user (full refs), to complete partial refs such as comment authors. */
  readonly tinypmUsers: readonly UserRef[];
  /** The target user for unmapped users under `placeholder`. */
  readonly placeholder?: UserRef | undefined;
}

export interface MatchUsersOptions {
  readonly tinypmUsers: readonly UserRef[];
  /** Target users: GitHub `{id: login, login}`, Jira `{id: accountId, name, email?}`. */
  readonly targetUsers: readonly UserRef[];
  readonly userMap?: UserMap | undefined;
  /** @default the map file's policy, else "skip" */
  readonly policy?: UnmappedPolicy | undefined;
}

export interface MatchUsersResult {
  readonly table: UserTable;
  readonly matches: readonly UserMatch[];
  /** tinyPM users with no target account (to list in every report). */
  readonly unmapped: readonly UserRef[];
}

const norm = (s: string | undefined): string | undefined =>
  s === undefined || s.trim() === "" ? undefined : s.trim().toLowerCase();

type Finder = (u: UserRef, free: readonly UserRef[]) => UserRef | undefined;

function finders(map: UserMap | undefined, targets: readonly UserRef[]): [MatchHow, Finder][] {
  return [
    [
      "map-file",
      (u) => {
        const id = u.login === undefined ? undefined : map?.users[u.login];
        return id === undefined
          ? undefined
          : (targets.find((t) => t.id === id) ?? { id, login: id });
      },
    ],
    [
      "login",
      (u, free) =>
        free.find((t) => norm(u.login) !== undefined && norm(t.login ?? t.id) === norm(u.login)),
    ],
    [
      "email",
      (u, free) => free.find((t) => norm(u.email) !== undefined && norm(t.email) === norm(u.email)),
    ],
    [
      "name",
      (u, free) => free.find((t) => norm(u.name) !== undefined && norm(t.name) === norm(u.name)),
    ],
  ];
}

/**
 * Matches tinyPM users to target users: the map file first, then login, email and display name
 * (case-insensitive; each target user is used once). Pure; every match says how it was made.
 * @example matchUsers({tinypmUsers, targetUsers, userMap, policy: "skip"}).unmapped
 */
export function matchUsers(options: MatchUsersOptions): MatchUsersResult {
  const policy = options.policy ?? options.userMap?.policy ?? "skip";
  const placeholderId = options.userMap?.placeholder;
  const placeholder =
    placeholderId === undefined
      ? undefined
      : (options.targetUsers.find((t) => t.id === placeholderId) ?? {
          id: placeholderId,
          login: placeholderId,
        });
  const free = [...options.targetUsers];
  const matches: UserMatch[] = [];
  const unmapped: UserRef[] = [];
  for (const user of options.tinypmUsers) {
    const found = findMatch(user, finders(options.userMap, options.targetUsers), free);
    if (found !== undefined) {
      matches.push({ tinypm: user, ...found });
      const i = free.indexOf(found.target);
      if (i >= 0) free.splice(i, 1);
    } else {
      unmapped.push(user);
      if (policy === "placeholder" && placeholder !== undefined) {
        matches.push({ tinypm: user, target: placeholder, how: "placeholder" });
      }
    }
  }
  return {
    table: buildUserTable({ tinypmUsers: options.tinypmUsers, matches, policy, placeholder }),
    matches,
    unmapped,
  };
}

function findMatch(
  user: UserRef,
  list: [MatchHow, Finder][],
  free: readonly UserRef[],
): { target: UserRef; how: MatchHow } | undefined {
  for (const [how, find] of list) {
    const target = find(user, free);
    if (target !== undefined) return { target, how };
  }
  return undefined;
}

/** Builds a `UserTable` from matches (placeholder matches translate one way only). */
export function buildUserTable(options: {
  readonly tinypmUsers: readonly UserRef[];
  readonly matches: readonly UserMatch[];
  readonly policy: UnmappedPolicy;
  readonly placeholder?: UserRef | undefined;
}): UserTable {
  const toTarget = new Map<string, UserRef>();
  const toTinypm = new Map<string, UserRef>();
  for (const m of options.matches) {
    if (m.tinypm.login !== undefined) toTarget.set(m.tinypm.login, m.target);
    if (m.how !== "placeholder" && m.target.id !== undefined) toTinypm.set(m.target.id, m.tinypm);
  }
  return {
    policy: options.policy,
    toTarget,
    toTinypm,
    tinypmUsers: options.tinypmUsers,
    placeholder: options.placeholder,
  };
}

/** An empty table: no user translates (policy `skip`). */
export const EMPTY_USER_TABLE: UserTable = buildUserTable({
  tinypmUsers: [],
  matches: [],
  policy: "skip",
});

/** Throws the `fail` policy's error for one user. */
export function unmappedUserError(user: UserRef, direction: "target" | "tinypm"): MappingError {
  const who = user.login ?? user.id ?? user.name ?? "(unnamed)";
  return new MappingError(
    `User ${who} has no ${direction === "target" ? "target account" : "tinyPM account"} (user policy: fail).`,
    {
      hint: "Add the user to the user map file, or set `policy: skip` or `placeholder` there.",
      issues: [{ path: ["users", who], message: "unmapped user" }],
    },
  );
}
