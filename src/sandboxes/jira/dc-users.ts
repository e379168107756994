/**
 * People as Jira Data Center shows them: a `name` (username) and a `key`, no `accountId`.
 * Requests name users as `{"name": "jsmith"}` (or `{"key": …}`); the v3 handlers underneath
 * work on accountIds, so references are translated on the way in and users on the way out.
 */
import { isRecord, ok, badRequest, intParam, type RequestContext } from "./context.js";
import {
  findAccount,
  findAccountByKey,
  findAccountByName,
  type Account,
  type Site,
} from "./site.js";
import { visibleEmail } from "./users.js";

const API = "/rest/api/2";

/** A user object of the DC REST API. */
export function renderDcUser(origin: string, account: Account): Record<string, unknown> {
  const user: Record<string, unknown> = {
    self: `${origin}${API}/user?username=${encodeURIComponent(account.name)}`,
    key: account.key,
    name: account.name,
    avatarUrls: {
      "48x48": `${origin}/secure/useravatar?ownerId=${account.key}&avatarId=10122`,
      "24x24": `${origin}/secure/useravatar?size=small&ownerId=${account.key}&avatarId=10122`,
      "16x16": `${origin}/secure/useravatar?size=xsmall&ownerId=${account.key}&avatarId=10122`,
      "32x32": `${origin}/secure/useravatar?size=medium&ownerId=${account.key}&avatarId=10122`,
    },
    displayName: account.displayName,
    active: account.active,
    timeZone: "Etc/UTC",
  };
  const email = visibleEmail(account);
  if (email !== undefined) user.emailAddress = email;
  return user;
}

/** Whether a value is a Cloud user object the v3 handlers rendered (render.ts `renderUser`). */
export function isCloudUser(value: Record<string, unknown>): boolean {
  return typeof value.accountId === "string" && "displayName" in value && "avatarUrls" in value;
}

/** A Cloud user object turned into the DC shape (unknown accounts are left as they are). */
export function dcUserOf(
  site: Site,
  origin: string,
  value: Record<string, unknown>,
): Record<string, unknown> {
  const account = findAccount(site, String(value.accountId));
  return account === undefined ? value : renderDcUser(origin, account);
}

/** Fields whose value is one user reference. */
const USER_FIELDS = new Set(["assignee", "reporter", "author", "updateAuthor"]);

/**
 * `{"name": "jsmith"}` / `{"key": "JIRAUSER10100"}` → `{"accountId": …}` for the handlers; an
 * empty name unassigns (`null`), as on DC. An unknown user keeps a reference no account has, so
 * the field's own validation answers.
 */
export function dcUserRef(site: Site, value: unknown): unknown {
  if (!isRecord(value)) return value;
  if (typeof value.accountId === "string") return { accountId: "(Data Center has no accountId)" };
  const name = typeof value.name === "string" ? value.name : undefined;
  if (name === "") return null;
  const account =
    name !== undefined
      ? findAccountByName(site, name)
      : typeof value.key === "string"
        ? findAccountByKey(site, value.key)
        : undefined;
  if (account !== undefined) return { accountId: account.accountId };
  return { accountId: `(no user named ${name ?? String(value.key)})` };
}

/** Walks a request body, translating user references in user fields and `update` operations. */
export function dcRequestUsers(site: Site, body: unknown, key?: string): unknown {
  if (Array.isArray(body)) return body.map((v) => dcRequestUsers(site, v, key));
  if (!isRecord(body)) return body;
  if (key !== undefined && USER_FIELDS.has(key)) return dcUserRef(site, body);
  return Object.fromEntries(
    Object.entries(body).map(([k, v]) => [
      k,
      // `update.assignee: [{set: {name}}]` keeps the field's name for its operations.
      (k === "set" || k === "add") && key !== undefined && USER_FIELDS.has(key)
        ? dcUserRef(site, v)
        : dcRequestUsers(site, v, k === "set" || k === "add" ? key : k),
    ]),
  );
}

/**
 * `GET /user/search?username=`: DC matches the fragment against usernames, display-name words
 * and email addresses (visible or not), so an email fragment can match many people — callers
 * must filter exactly. `includeInactive` adds inactive users.
 */
export function dcUserSearch(ctx: RequestContext) {
  const fragment = (ctx.query.get("username") ?? "").toLowerCase();
  if (fragment === "") throw badRequest("The username query parameter was not provided");
  const startAt = intParam(ctx, "startAt", 0, Number.MAX_SAFE_INTEGER);
  const maxResults = intParam(ctx, "maxResults", 50, 1000);
  const inactive = (ctx.query.get("includeInactive") ?? "").toLowerCase() === "true";
  const { site } = ctx.store;
  const matches = [site.admin, ...site.users].filter(
    (a) =>
      (a.active || inactive) &&
      (fragment === "." ||
        a.name.toLowerCase().startsWith(fragment) ||
        a.displayName
          .toLowerCase()
          .split(" ")
          .some((w) => w.startsWith(fragment)) ||
        (a.emailAddress?.toLowerCase().startsWith(fragment) ?? false)),
  );
  return ok(matches.slice(startAt, startAt + maxResults).map((a) => renderDcUser(ctx.origin, a)));
}

/** `GET /user?username=` or `?key=`. */
export function dcGetUser(ctx: RequestContext) {
  const name = ctx.query.get("username");
  const key = ctx.query.get("key");
  const { site } = ctx.store;
  const account =
    name !== null
      ? findAccountByName(site, name)
      : key !== null
        ? findAccountByKey(site, key)
        : undefined;
  if (name === null && key === null)
    throw badRequest("Either the 'username' or the 'key' query parameter is required.");
  if (account === undefined)
    return {
      status: 404,
      body: {
        errorMessages: [`The user named '${name ?? key ?? ""}' does not exist`],
        errors: {},
      },
    };
  return ok(renderDcUser(ctx.origin, account));
}
