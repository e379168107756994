/**
 * What a sandbox token may do on the repository: `admin` everything (the import API, deleting
 * issues), `write` what a collaborator with push access may (no admin routes, no `deleteIssue`),
 * `read` only reads (writes answer 403 "Resource not accessible by personal access token").
 */
export type TokenAccess = "admin" | "write" | "read";
