/**
 * Users across systems: the user-map file and the `UserTable` the compiled mapping uses to
 * translate `UserRef`s both ways (automatic matching is in user-match.ts).
 */
import { z } from "zod";
import { MappingError } from "../core/errors.js";
import type { UserRef } from "../core/model.js";
import { parseYamlWith, readText } from "./load.js";
import type { UserMatch } from "./user-match.js";

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
    // `users:` with every entry commented out (a fresh `users --write` skeleton) is null: empty.
    users: z
      .preprocess((v) => (v === null ? {} : v), z.record(z.string(), z.string().min(1)))
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
