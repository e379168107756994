/**
 * The change feed's checkpoint after a migration, from what the adapter already knows: without
 * it, the first `sync` reads the whole repository again, and every issue's comments with it
 * (about two requests per story). Here the repository is listed once (100 issues a request, no
 * comments): when every issue is a version the engine holds (read by the migration's full
 * listing or answered by its own writes), nobody else changed anything, and the checkpoint is
 * set past the newest one with the ETag of the next run's exact request, so that the first
 * quiet sync costs one 304 like any later one. Anything else — an issue nobody listed or wrote,
 * or one changed since — gives no checkpoint: the first sync reads everything, as before.
 */
import { PayloadInvalidError } from "../../core/errors.js";
import type { Checkpoint } from "../../core/tracker.js";
import { encodeCheckpoint, laterOf, seenInWindow, sinceFor, versionKey } from "./checkpoint.js";
import type { GithubContext } from "./context.js";
import { listRequest, OPERATION } from "./feed.js";
import { notKnown } from "./known-versions.js";
import { readIssue } from "./reads.js";
import { pages } from "./requests.js";
import type { RawIssue } from "./schema.js";

/** What one listing (from `since`) holds, or why it gives no checkpoint: the first issue the
 * engine does not hold as listed. */
interface KnownListing {
  /** The newest `updated_at` listed (none for an empty listing). */
  readonly newest: string | undefined;
  /** Each issue's version key, when asked for (the window's); not the whole repository's. */
  readonly keys: string[];
  readonly etag: string;
  readonly pages: number;
}

/**
 * Lists from `since` and keeps only what the checkpoint needs: the issues themselves go with
 * their page (a whole repository's parsed issues were the migration's last peak of memory).
 */
async function listKnown(
  ctx: GithubContext,
  since: string | undefined,
  signal: AbortSignal | undefined,
  keepKeys: boolean,
): Promise<KnownListing | { readonly none: string }> {
  const keys: string[] = [];
  let newest: string | undefined;
  let etag: string | undefined;
  let count = 0;
  for await (const page of pages(ctx, listRequest(since, undefined, signal))) {
    if (page === "not-modified") return { none: "the repository's listing answered 304" };
    count++;
    const header = page.response.headers.etag;
    etag ??= header === undefined ? "" : String(header);
    for (const raw of page.items) {
      // An issue that cannot be read is no version the engine holds: no checkpoint then.
      let issue: RawIssue | undefined;
      try {
        issue = readIssue(ctx, raw, OPERATION);
      } catch (error) {
        if (error instanceof PayloadInvalidError)
          return { none: `an issue of the listing could not be read: ${error.message}` };
        throw error;
      }
      if (issue === undefined) continue;
      const unknown = notKnown(ctx.known, issue);
      if (unknown !== undefined) return { none: unknown };
      newest = laterOf(newest, issue.updated_at);
      if (keepKeys) keys.push(versionKey(issue));
    }
  }
  return { newest, keys, etag: etag ?? "", pages: count };
}

export async function checkpointAfterWrites(
  ctx: GithubContext,
  signal?: AbortSignal,
  onNone: (why: string) => void = () => undefined,
): Promise<Checkpoint | undefined> {
  if (ctx.known.size === 0) return undefined;
  const none = (why: string): Checkpoint | undefined => {
    onNone(why);
    return undefined;
  };
  const all = await listKnown(ctx, undefined, signal, false);
  if ("none" in all) return none(all.none);
  const max = all.newest;
  if (max === undefined) return undefined;
  const since = sinceFor(max);
  // The next run's exact request, for its ETag and the versions inside the overlap window.
  const window = await listKnown(ctx, since, signal, true);
  if ("none" in window) return none(window.none);
  if (window.newest !== undefined && laterOf(max, window.newest) !== max)
    return none(`an issue changed after the listing (updated ${window.newest}, newest ${max})`);
  const seen = seenInWindow(window.keys, since);
  // The first page's ETag stands for the listing only when it is the only page: changes sort
  // last, so a longer listing's first page stays the same (the next run then lists the window).
  const etag = window.pages === 1 ? window.etag : "";
  return encodeCheckpoint({ since, etag, seen });
}
