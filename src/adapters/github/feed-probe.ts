/**
 * The newest-first probe of the change feed. The feed lists oldest update first, so the first
 * page's ETag stands for the listing only when it is the only page: a change sorts last. When
 * more than a page of issues shares the window's second (a large migration's last second), a
 * quiet sync would list them all again, every time. Newest first, a change sorts first instead:
 * once GitHub's clock is past the window (checkpoint.ts `settledAt`), every later update is
 * stamped after the newest issue listed, so the first issue newest-first — and the ETag of that
 * one-issue page — changes with any update from `since` on. A 304 to it says nothing changed.
 */
import { laterOf } from "./checkpoint.js";
import type { GithubContext } from "./context.js";
import { probeRequest } from "./feed-requests.js";
import { parse } from "./requests.js";
import { rawIssueSchema } from "./schema.js";

/** What a 200 to the probe said: its ETag and the `updated_at` it lists first. */
export interface ProbeAnswer {
  readonly etag: string;
  /** None when nothing was updated from `since` on. */
  readonly newest: string | undefined;
}

/** Sends the probe: `not-modified` when its ETag still stands. */
export async function probe(
  ctx: GithubContext,
  since: string,
  etag: string | undefined,
  signal?: AbortSignal,
): Promise<ProbeAnswer | "not-modified"> {
  const req = probeRequest(since, etag, signal);
  const res = await ctx.client.request(req);
  if (res === "not-modified") return res;
  const items = parse(rawIssueSchema.array(), res.data, req);
  const header = res.headers.etag;
  return { etag: header === undefined ? "" : String(header), newest: items[0]?.updated_at };
}

/**
 * The probe's ETag for a window whose newest update is `max`, listed once GitHub's clock was
 * past it: none when the probe lists something newer (changed meanwhile: the next run lists).
 */
export async function probeEtag(
  ctx: GithubContext,
  since: string,
  max: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const answer = await probe(ctx, since, undefined, signal);
  if (answer === "not-modified" || answer.etag === "") return undefined;
  if (answer.newest !== undefined && laterOf(max, answer.newest) !== max) return undefined;
  return answer.etag;
}
