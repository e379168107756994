/**
 * The sandbox site's people, as Jira Cloud treats them: accounts known by `accountId` only, an
 * email address that the API shows only when the user's profile makes it visible (and that user
 * search then cannot find either), and a project role that decides who may be assigned issues.
 */
import type { Account } from "./site.js";

/** One user of the sandbox dataset; a bare string is `{ login }`. */
export interface JiraSandboxUser {
  /** Gives the accountId `acc-<login>` and, by default, the email `<login>@example.com`. */
  readonly login: string;
  /** @default `acc-<login>` */
  readonly accountId?: string | undefined;
  /** @default "<Login> <surname>" ("Alice Andersson", "Bob Berg", …) */
  readonly displayName?: string | undefined;
  /** @default `<login>@example.com` */
  readonly email?: string | undefined;
  /** Whether the profile shows the email to API callers. @default every second user hides it */
  readonly emailVisible?: boolean | undefined;
  /** Whether the user may be assigned issues in the project. @default true */
  readonly assignable?: boolean | undefined;
  /** @default true; inactive accounts are never assignable */
  readonly active?: boolean | undefined;
}

const SURNAMES = ["Andersson", "Berg", "Carlsson", "Dahl", "Ek", "Falk", "Gran", "Holm"];

export const DEFAULT_USERS = ["alice", "bob", "carol", "dave", "erin", "frank"] as const;

/** Accounts for the dataset's users: `acc-<login>`; by default every second user hides the email. */
export function accountsFor(users: readonly (string | JiraSandboxUser)[]): Account[] {
  return users.map((entry, i) => {
    const u = typeof entry === "string" ? { login: entry } : entry;
    if (!/^[A-Za-z0-9._-]+$/.test(u.login))
      throw new Error(
        `Jira sandbox user login "${u.login}" must be letters, digits, ".", "_" or "-"`,
      );
    const surname = SURNAMES[i % SURNAMES.length] ?? "";
    return {
      accountId: u.accountId ?? `acc-${u.login}`,
      name: u.login,
      key: `JIRAUSER${10100 + i}`,
      displayName:
        u.displayName ?? `${u.login.charAt(0).toUpperCase()}${u.login.slice(1)} ${surname}`,
      emailAddress: u.email ?? `${u.login}@example.com`,
      emailVisible: u.emailVisible ?? i % 2 === 0,
      assignable: u.assignable ?? true,
      active: u.active ?? true,
    };
  });
}

/** The email the API shows for an account: only when its profile makes it visible. */
export function visibleEmail(account: Account): string | undefined {
  return account.emailVisible ? account.emailAddress : undefined;
}

/** Whether issues of the project may be assigned to the account. */
export function isAssignable(account: Account): boolean {
  return account.active && account.assignable;
}

/** Jira's 400 text for an assignee who may not be assigned issues in the project. */
export function notAssignableMessage(account: Account): string {
  return `User '${account.displayName}' cannot be assigned issues.`;
}
