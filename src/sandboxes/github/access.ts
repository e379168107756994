/**
 * What a sandbox token may do on the repository: `admin` everything (the import API, deleting
 * issues), `write` what a collaborator with push access may (no admin routes, no `deleteIssue`),
 * `read` only reads (writes answer 403 "Resource not accessible by personal access token").
 */
export type TokenAccess = "admin" | "write" | "read";

/**
 * A classic token's OAuth scopes (sent back in `X-OAuth-Scopes`), or `fine-grained`: no scopes
 * header, and a user's projects out of reach (GitHub gives fine-grained tokens a "Projects"
 * permission for organizations only).
 */
export type TokenScopes = readonly string[] | "fine-grained";

/** A classic token with every scope the tool's jobs use. */
export const DEFAULT_SCOPES: readonly string[] = ["project", "read:org", "repo"];

/** The `X-OAuth-Scopes` header GitHub sends for a classic token (none for a fine-grained one). */
export function scopeHeaders(scopes: TokenScopes): Record<string, string> {
  return scopes === "fine-grained" ? {} : { "x-oauth-scopes": scopes.join(", ") };
}

/**
 * GitHub's INSUFFICIENT_SCOPES refusal of a Projects (v2) field for a classic token: reads need
 * `read:project` (or `project`), mutations `project`. `undefined` when the scopes suffice.
 */
export function missingProjectScope(
  scopes: TokenScopes,
  field: string,
  mutation: boolean,
): string | undefined {
  if (scopes === "fine-grained") return undefined;
  if (scopes.includes("project")) return undefined;
  if (!mutation && scopes.includes("read:project")) return undefined;
  const needed = mutation ? "['project']" : "['read:project']";
  const granted = `[${scopes.map((s) => `'${s}'`).join(", ")}]`;
  return `Your token has not been granted the required scopes to execute this query. The '${field}' field requires one of the following scopes: ${needed}, but your token has only been granted the: ${granted} scopes. Please modify your token's scopes at: https://github.com/settings/tokens.`;
}
