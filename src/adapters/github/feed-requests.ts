/** The change feed's two listings of the repository's issues, by last update. */
import type { GithubRequest } from "./client.js";

export const OPERATION = "issues.listForRepo";

/** The feed's listing: every issue updated from `since` on, oldest update first. */
export function listRequest(
  since: string | undefined,
  etag: string | undefined,
  signal?: AbortSignal,
): GithubRequest {
  return {
    method: "GET",
    url: "/repos/{owner}/{repo}/issues",
    params: {
      state: "all",
      sort: "updated",
      direction: "asc",
      per_page: 100,
      ...(since === undefined ? {} : { since }),
    },
    ifNoneMatch: etag,
    operation: OPERATION,
    signal,
  };
}

/** The probe's request: the issue (or pull request) updated last from `since`, alone. */
export function probeRequest(
  since: string,
  etag: string | undefined,
  signal?: AbortSignal,
): GithubRequest {
  return {
    method: "GET",
    url: "/repos/{owner}/{repo}/issues",
    params: { state: "all", sort: "updated", direction: "desc", per_page: 1, since },
    ifNoneMatch: etag,
    operation: OPERATION,
    signal,
  };
}
