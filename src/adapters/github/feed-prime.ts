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
import { setTimeout as sleep } from "node:timers/promises";
import {
  dateOf,
  encodeCheckpoint,
  laterOf,
  seenInWindow,
  settledAt,
  sinceFor,
  versionKey,
} from "./checkpoint.js";
import type { GithubContext } from "./context.js";
import { listRequest, OPERATION } from "./feed-requests.js";
import { probeEtag } from "./feed-probe.js";
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
  /** GitHub's time when the first page was answered (its `Date` header), when it gave one. */
  readonly readAt: number | undefined;
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
  let readAt: number | undefined;
  let count = 0;
  for await (const page of pages(ctx, listRequest(since, undefined, signal))) {
    if (page === "not-modified") return { none: "the repository's listing answered 304" };
    if (count === 0) readAt = dateOf(page.response.headers.date);
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
  return { newest, keys, etag: etag ?? "", pages: count, readAt };
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
  // The next run's exact request, for its ETag and the versions inside the overlap window.
  let since = sinceFor(max);
  let window = await listKnown(ctx, since, signal, true);
  if ("none" in window) return none(window.none);
  let settledSince = false;
  if (window.pages > 1) {
    // More than a page of issues in the window (a large migration's last seconds): no ETag can
    // stand for it, and the first sync would list it all again. Listed once GitHub's clock is
    // past the window, the newest second alone is the window (checkpoint.ts `sinceFor`).
    const settled = await settledWindow(ctx, max, window.readAt, signal);
    if (settled !== undefined && "none" in settled) return none(settled.none);
    if (settled !== undefined) ({ since, window } = settled);
    settledSince = settled !== undefined;
  }
  if (window.newest !== undefined && laterOf(max, window.newest) !== max)
    return none(`an issue changed after the listing (updated ${window.newest}, newest ${max})`);
  const seen = seenInWindow(window.keys, since);
  // The first page's ETag stands for the listing only when it is the only page: changes sort
  // last, so a longer listing's first page stays the same. A longer one listed once GitHub's
  // clock was past it has the newest-first probe's instead (feed-probe.ts); else the next run
  // lists the window.
  if (window.pages === 1) return encodeCheckpoint({ since, etag: window.etag, seen });
  const probed = settledSince ? await probeEtag(ctx, since, max, signal) : undefined;
  return encodeCheckpoint({ since, etag: probed, seen, probe: "newest" });
}

/** The longest wait for GitHub's clock to pass the window: the window and two seconds. */
const MAX_WAIT_MS = 7_000;

/**
 * The window as listed once GitHub's clock is past it (waiting for that, a few seconds at most),
 * or undefined when GitHub's clock did not show it past (no `Date` header, a clock that stood).
 */
async function settledWindow(
  ctx: GithubContext,
  max: string,
  readAt: number | undefined,
  signal: AbortSignal | undefined,
): Promise<{ since: string; window: KnownListing } | { readonly none: string } | undefined> {
  if (readAt === undefined) return undefined;
  // `Date` has whole seconds: GitHub's time may be up to a second past the one it says.
  if (readAt < settledAt(max)) {
    // Stopped meanwhile (Ctrl-C, a lost lease): the stop's own reason, as a request would give.
    const ms = Math.min(settledAt(max) - readAt + 1_000, MAX_WAIT_MS);
    await sleep(ms, undefined, { signal }).catch((error: unknown) => {
      throw signal?.aborted === true ? (signal.reason as Error) : error;
    });
  }
  const since = sinceFor(max, settledAt(max));
  const window = await listKnown(ctx, since, signal, true);
  if ("none" in window) return window;
  return sinceFor(max, window.readAt) === since ? { since, window } : undefined;
}
