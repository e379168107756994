import { SyncError } from "../../core/errors.js";
import type { ProbeResult } from "../../core/tracker.js";
import type { GithubContext } from "./context.js";
import { fetchOne, parse } from "./requests.js";
import { rawRepoSchema } from "./schema.js";

/** A repository probe, with the token's classic scopes when GitHub told them. */
export type RepoProbe = ProbeResult & {
  /** `X-OAuth-Scopes` of a classic token; `undefined` for a fine-grained or app token. */
  readonly classicScopes?: readonly string[] | undefined;
};

/** Reachable, token accepted, repository visible, push rights: one `GET /repos/{o}/{r}`. */
export async function probeRepo(
  ctx: GithubContext,
  where: { baseUrl: string; owner: string; repo: string },
  signal?: AbortSignal,
): Promise<RepoProbe> {
  const name = `${where.owner}/${where.repo}`;
  const base = { system: "github" as const };
  try {
    const res = await fetchOne(ctx, {
      method: "GET",
      url: "/repos/{owner}/{repo}",
      operation: "repos.get",
      signal,
    });
    const repo = parse(rawRepoSchema, res.data, { operation: "repos.get" });
    const canWrite = repo.permissions?.push === true || repo.permissions?.admin === true;
    const scopes = res.headers["x-oauth-scopes"];
    return {
      ...base,
      classicScopes:
        typeof scopes === "string"
          ? scopes
              .split(",")
              .map((x) => x.trim())
              .filter((x) => x !== "")
          : undefined,
      reachable: true,
      authenticated: true,
      projectVisible: true,
      canWrite,
      details: `GitHub at ${where.baseUrl}, repository ${repo.full_name}${canWrite ? "" : " (read-only token)"}`,
      // Shown only where the job writes to GitHub (check's probeLine).
      ...(!canWrite && {
        hint: `The token can read ${repo.full_name} but not write to it: give it write access to issues (classic token: the \`repo\` scope, \`public_repo\` for a public repository; fine-grained: Issues read and write on ${repo.full_name}), or use a token of an account with push access.`,
      }),
    };
  } catch (err) {
    const code = err instanceof Error && "code" in err ? String(err.code) : "internal";
    const details = `GitHub at ${where.baseUrl}, repository ${name}: ${err instanceof Error ? err.message : String(err)}`;
    const hint = err instanceof SyncError ? err.hint : undefined;
    if (code === "auth_failed")
      return {
        ...base,
        reachable: true,
        authenticated: false,
        projectVisible: false,
        canWrite: false,
        details,
        hint,
      };
    if (code === "not_found" || code === "permission_denied")
      return {
        ...base,
        reachable: true,
        authenticated: true,
        projectVisible: false,
        canWrite: false,
        details,
        hint,
      };
    if (code === "remote_unavailable")
      return {
        ...base,
        reachable: false,
        authenticated: false,
        projectVisible: false,
        canWrite: false,
        details,
        hint,
      };
    throw err;
  }
}
