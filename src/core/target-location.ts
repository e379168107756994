/**
 * Where a target's items live, as one string: the scope of import claims (two jobs sharing a
 * repository or a Jira project never both import one issue). GitHub repositories and hosts are
 * case-insensitive; a Jira project key is upper case. The API root's path is kept (GHES serves
 * `/api/v3`, a Jira site may live under a context path), its trailing slash is not.
 *
 * @example targetLocation({ type: "github", baseUrl: "https://api.github.com", owner: "Acme", repo: "Web" })
 * // "github:api.github.com/acme/web"
 */
export function targetLocation(
  t:
    | {
        readonly type: "github";
        readonly baseUrl: string;
        readonly owner: string;
        readonly repo: string;
      }
    | { readonly type: "jira"; readonly baseUrl: string; readonly project: string },
): string {
  const url = new URL(t.baseUrl);
  const root = `${url.host}${url.pathname.replace(/\/+$/, "")}`.toLowerCase();
  return t.type === "github"
    ? `github:${root}/${t.owner}/${t.repo}`.toLowerCase()
    : `jira:${root}/${t.project.toUpperCase()}`;
}
