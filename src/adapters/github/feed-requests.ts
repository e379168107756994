/** The change feed's two listings of the repository's issues, by last update. */
import type { GithubRequest } from "./client.js";

export const OPERATION = "issues.listForRepo";

/** The feed's listing: every issue updated from `since` on, oldest update first. */
export function listRequest(
  since: string | undefined,
  etag: string | undefined,
  signal?: AbortSignal,
): GithubRequest {
  const from = since === undefined ? {} : { since };
  return listing({ direction: "asc", per_page: 100, ...from }, etag, signal);
}

/** The probe's request: the issue (or pull request) updated last from `since`, alone. */
export function probeRequest(
  since: string,
  etag: string | undefined,
  signal?: AbortSignal,
): GithubRequest {
  return listing({ direction: "desc", per_page: 1, since }, etag, signal);
}

function listing(
  params: Record<string, string | number>,
  etag: string | undefined,
  signal: AbortSignal | undefined,
): GithubRequest {
  return {
    method: "GET",
    url: "/repos/{owner}/{repo}/issues",
    params: { state: "all", sort: "updated", ...params },
    ifNoneMatch: etag,
    operation: OPERATION,
    signal,
  };
}
