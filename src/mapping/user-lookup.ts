/** Translates `UserRef`s through a `UserTable`, applying the unmapped-user policy. */
import type { UserRef } from "../core/model.js";
import { unmappedUserError, type UserTable } from "./users.js";
import { cleanUser } from "./values.js";

/** The per-compile user lookups. */
export interface UserLookup {
  /** The full tinyPM user for a partial ref (by login, id, then name), else the ref itself. */
  complete(ref: UserRef): UserRef;
  /**
   * The target user for a tinyPM user, or `undefined` (policy `skip`). `lenient` (authors of
   * comments and time entries, whose names travel in the text) never throws.
   * @throws MappingError under policy `fail`
   */
  toTarget(ref: UserRef, lenient?: boolean): UserRef | undefined;
  /** The tinyPM user for a target user, or `undefined` (unknown). @throws under `fail` unless lenient */
  toTinypm(ref: UserRef, lenient?: boolean): UserRef | undefined;
}

/** Builds indexes once so each lookup is a map access. */
export function createUserLookup(table: UserTable): UserLookup {
  const byLogin = new Map<string, UserRef>();
  const byId = new Map<string, UserRef>();
  const byName = new Map<string, UserRef>();
  for (const u of table.tinypmUsers) {
    const ref = cleanUser(u);
    if (u.login !== undefined && !byLogin.has(u.login)) byLogin.set(u.login, ref);
    if (u.id !== undefined && !byId.has(u.id)) byId.set(u.id, ref);
    if (u.name !== undefined && !byName.has(u.name)) byName.set(u.name, ref);
  }
  // GitHub logins are case-insensitive: a target user read as `Alice` is the table's `alice`.
  // (Jira accountIds carry no login and are looked up exactly.)
  const byFoldedTarget = new Map<string, UserRef>();
  for (const [id, u] of table.toTinypm)
    if (!byFoldedTarget.has(id.toLowerCase())) byFoldedTarget.set(id.toLowerCase(), u);
  const complete = (ref: UserRef): UserRef =>
    (ref.login !== undefined ? byLogin.get(ref.login) : undefined) ??
    (ref.id !== undefined ? byId.get(ref.id) : undefined) ??
    (ref.login === undefined && ref.id === undefined && ref.name !== undefined
      ? byName.get(ref.name)
      : undefined) ??
    cleanUser(ref);
  return {
    complete,
    toTarget(ref, lenient = false) {
      const login = complete(ref).login;
      const hit = login === undefined ? undefined : table.toTarget.get(login);
      if (hit !== undefined) return hit;
      if (table.policy === "fail" && !lenient) throw unmappedUserError(ref, "target");
      return table.policy === "placeholder" ? table.placeholder : undefined;
    },
    toTinypm(ref, lenient = false) {
      const key = ref.id ?? ref.login;
      const hit =
        key === undefined
          ? undefined
          : (table.toTinypm.get(key) ??
            (ref.login === undefined ? undefined : byFoldedTarget.get(key.toLowerCase())));
      if (hit !== undefined) return cleanUser(hit);
      if (table.policy === "fail" && !lenient) throw unmappedUserError(ref, "tinypm");
      return undefined;
    },
  };
}
