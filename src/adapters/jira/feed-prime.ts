/**
 * The change feed's checkpoint after a migration, from what the adapter already knows: without
 * it, the first `sync` reads the whole project by search again (every issue parsed at once, the
 * run's peak of memory) and all of tinyPM with it. Here the project is listed once by the feed's
 * own search (oldest update first), a page at a time and without keeping the issues: when every
 * issue is a version the engine holds (known-versions.ts), nobody else changed anything, and the
 * checkpoint is what the feed itself would have stored after reading them all — the newest
 * `updated` and the hashes of the issues inside the overlap window, so that the next run's search
 * from `updated >= newest − overlap` (JQL is minute-granular) drops them, those updated in the
 * newest one's minute included. Anything else — an issue the engine was never handed, one
 * changed since, one gone — gives no checkpoint: the first sync reads everything, as before.
 *
 * Search is eventually consistent: an issue written in the last moments may be missing from the
 * listing, or listed as it was before. Such issues (a few, at most `MAX_READS`) are read by key,
 * which is never behind, and count as known only when that read shows a version the engine holds.
 */
import { PayloadInvalidError } from "../../core/errors.js";
import type { WorkItem } from "../../core/model.js";
import type { Checkpoint } from "../../core/tracker.js";
import { advanceFeed, encodeCheckpoint, searchedAt, type FeedState } from "./checkpoint.js";
import type { JiraContext } from "./context.js";
import { updatedSinceJql } from "./jql.js";
import { isKnownVersion } from "./known-versions.js";
import { getItem, searchIssues, toItem } from "./reads.js";

/** The most issues read by key because search did not show them as known. */
export const MAX_READS = 50;

interface Listing {
  /** The feed's state after the listed issues that are known versions. */
  readonly state: FeedState | undefined;
  /** Every key listed (a known issue not among them may be gone). */
  readonly listed: ReadonlySet<string>;
  /** Known issues listed as another version: search may be behind, read by key. */
  readonly doubtful: readonly string[];
}

/** Why a migration's target gives no checkpoint, in words naming the issue. */
interface None {
  readonly none: string;
}

/** Lists the project as the feed does; why not, at the first issue the engine was never handed. */
async function listProject(
  ctx: JiraContext,
  signal: AbortSignal | undefined,
): Promise<Listing | None> {
  const overlapMs = ctx.settings.overlapMs;
  let state: FeedState | undefined;
  const listed = new Set<string>();
  const doubtful: string[] = [];
  for await (const page of searchIssues(ctx, updatedSinceJql(ctx.settings.projectKey, undefined))) {
    signal?.throwIfAborted();
    const items: WorkItem[] = [];
    for (const raw of page) {
      const item = await toItem(ctx, raw);
      listed.add(item.id);
      if (isKnownVersion(ctx.known, item)) items.push(item);
      else if (ctx.known.has(item.id) && doubtful.length < MAX_READS) doubtful.push(item.id);
      else if (ctx.known.has(item.id))
        return {
          none: `more than ${MAX_READS} of the migration's issues are listed as other versions than it wrote or read (${item.id} among them)`,
        };
      else return { none: `issue ${item.id} was neither listed nor written by the migration` };
    }
    state = advanceFeed({ state, items, overlapMs }).state;
  }
  return { state, listed, doubtful };
}

/** Reads issues by key; why not, when one is gone or not a version the engine holds. */
async function readKnown(ctx: JiraContext, keys: readonly string[]): Promise<WorkItem[] | None> {
  const items: WorkItem[] = [];
  for (const key of keys) {
    // The kind only names an issue that cannot be read, and none is handed anywhere here.
    const item = await getItem(ctx, { kind: "story", id: key });
    if (item === undefined) return { none: `issue ${key}, which the migration wrote, is gone` };
    if (!isKnownVersion(ctx.known, item))
      return { none: `issue ${key} differs from what the migration wrote or read` };
    items.push(item);
  }
  return items.sort((a, b) => Date.parse(a.updatedAt ?? "") - Date.parse(b.updatedAt ?? ""));
}

async function primeFeed(
  ctx: JiraContext,
  signal: AbortSignal | undefined,
  none: (why: string) => Checkpoint | undefined,
): Promise<Checkpoint | undefined> {
  // The listing is the feed's own search: begun at this time on the site's clock, it saw every
  // issue updated before this less the overlap (checkpoint.ts).
  await ctx.site();
  const readAt = ctx.client.serverNow()?.getTime();
  const listing = await listProject(ctx, signal);
  if ("none" in listing) return none(listing.none);
  const unlisted = [...ctx.known.keys()].filter((key) => !listing.listed.has(key));
  const toRead = [...listing.doubtful, ...unlisted];
  if (toRead.length > MAX_READS)
    return none(
      `${toRead.length} of the migration's issues are missing from search or listed as other versions (more than ${MAX_READS} to read one by one)`,
    );
  const read = await readKnown(ctx, toRead);
  if ("none" in read) return none(read.none);
  const { state } = advanceFeed({
    state: listing.state,
    items: read,
    overlapMs: ctx.settings.overlapMs,
  });
  return encodeCheckpoint(searchedAt(state, readAt));
}

export async function checkpointAfterWrites(
  ctx: JiraContext,
  signal?: AbortSignal,
  onNone: (why: string) => void = () => undefined,
): Promise<Checkpoint | undefined> {
  if (ctx.known.size === 0) return undefined;
  const none = (why: string): Checkpoint | undefined => {
    onNone(why);
    return undefined;
  };
  try {
    return await primeFeed(ctx, signal, none);
  } catch (error) {
    // An issue that cannot be read is no version the engine holds: no checkpoint then.
    if (error instanceof PayloadInvalidError)
      return none(`an issue of the listing could not be read: ${error.message}`);
    throw error;
  }
}
