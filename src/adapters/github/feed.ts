import type { Change, ChangePage, Checkpoint } from "../../core/tracker.js";
import {
  dateOf,
  decodeCheckpoint,
  encodeCheckpoint,
  laterOf,
  seenInWindow,
  settledAt,
  sinceFor,
  versionKey,
} from "./checkpoint.js";
import type { GithubContext } from "./context.js";
import { loadItem, readIssue } from "./reads.js";
import { listRequest, OPERATION } from "./feed-requests.js";
import { probe, probeEtag } from "./feed-probe.js";
import { pages } from "./requests.js";
import { issueIdentity, issueOrUnreadable, type OnUnreadable } from "./unreadable.js";

/** Rounds of "fetch the overlap window again" before giving up on priming the ETag. */
const MAX_ROUNDS = 3;

interface Round {
  since: string | undefined;
  max: string | undefined;
  seen: Set<string>;
  /** GitHub's time when this round's first page was answered (checkpoint.ts `sinceFor`). */
  readAt: number | undefined;
}

/**
 * The change feed: issues updated since the checkpoint (`since`, `sort=updated`, `state=all`,
 * 100 per page), the first page sent with the stored ETag — or, when the checkpoint's ETag is the
 * newest-first probe's (feed-probe.ts), the probe first. A 304 yields one empty page with the
 * same checkpoint. After a changed scan, the overlap window is fetched once more (deduplicated)
 * so that the ETag stored belongs to the next run's exact request: an unchanged repository then
 * costs only 304s.
 */
export async function* changeFeed(
  ctx: GithubContext,
  from: Checkpoint | undefined,
  signal?: AbortSignal,
  /** Where an issue whose payload (or comments) fails validation goes; else the feed fails. */
  onUnreadable?: OnUnreadable,
): AsyncGenerator<ChangePage> {
  const cp = decodeCheckpoint(from);
  const full = cp.since === undefined;
  const state: Round = {
    since: cp.since,
    max: undefined,
    seen: new Set(splitSeen(cp.seen)),
    readAt: undefined,
  };
  let etag = cp.etag;
  if (cp.probe === "newest" && cp.since !== undefined) {
    // The window's ETag is the newest-first probe's (feed-probe.ts): a 304 says nothing changed;
    // else the window is listed as usual.
    if ((await probe(ctx, cp.since, etag, signal)) === "not-modified") {
      yield { changes: [], checkpoint: from ?? encodeCheckpoint(cp), complete: false };
      return;
    }
    etag = undefined;
  }
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let firstEtag: string | undefined;
    let pageCount = 0;
    for await (const page of pages(ctx, listRequest(state.since, etag, signal))) {
      if (page === "not-modified") {
        yield { changes: [], checkpoint: from ?? encodeCheckpoint(cp), complete: false };
        return;
      }
      if (pageCount === 0) state.readAt = dateOf(page.response.headers.date);
      firstEtag ??= etagOf(page.response.headers.etag);
      pageCount++;
      const changes = await pageChanges(ctx, page.items, state, signal, onUnreadable);
      yield { changes, checkpoint: checkpointOf(state, undefined), complete: false };
    }
    const next = state.max === undefined ? state.since : sinceFor(state.max, state.readAt);
    if (next === state.since) {
      // A first page's ETag stands for the whole listing only when there is no other page: a
      // change sorts last (oldest update first), so a longer listing's first page stays the same.
      // More than a page in the newest second, listed once GitHub's clock was past it: the
      // newest-first probe's ETag stands for it instead.
      const probed =
        pageCount > 1 && settled(state) && state.since !== undefined && state.max !== undefined
          ? await probeEtag(ctx, state.since, state.max, signal)
          : undefined;
      const etagNext = pageCount === 1 ? firstEtag : probed;
      const probeNext = probed === undefined ? undefined : "newest";
      yield {
        changes: [],
        checkpoint: checkpointOf(state, etagNext, probeNext),
        complete: full,
      };
      return;
    }
    state.since = next;
    etag = undefined;
  }
  yield { changes: [], checkpoint: checkpointOf(state, undefined), complete: full };
}

function splitSeen(seen: string | undefined): string[] {
  return seen === undefined || seen === "" ? [] : seen.split(",");
}

function etagOf(v: string | number | undefined): string {
  return v === undefined ? "" : String(v);
}

/** Whether this round's listing was read once GitHub's clock was past its newest update. */
function settled(state: Round): boolean {
  return (
    state.max !== undefined && state.readAt !== undefined && state.readAt >= settledAt(state.max)
  );
}

function checkpointOf(state: Round, etag: string | undefined, probe?: "newest"): Checkpoint {
  const since = state.max === undefined ? state.since : sinceFor(state.max, state.readAt);
  return encodeCheckpoint({
    since,
    etag,
    seen: since === undefined ? undefined : seenInWindow(state.seen, since),
    probe,
  });
}

async function pageChanges(
  ctx: GithubContext,
  items: readonly unknown[],
  state: Round,
  signal: AbortSignal | undefined,
  onUnreadable: OnUnreadable,
): Promise<Change[]> {
  const changes: Change[] = [];
  for (const raw of items) {
    // One that cannot be read is left out and its version not remembered: the engine reads a
    // parked issue by number on the next run (read.ts), so the checkpoint may pass it.
    const who = issueIdentity(raw);
    const issue = await issueOrUnreadable(who, onUnreadable, () => readIssue(ctx, raw, OPERATION));
    if (issue === undefined) continue;
    const key = versionKey(issue);
    state.max = laterOf(state.max, issue.updated_at);
    if (state.seen.has(key)) continue;
    const item = await issueOrUnreadable(who, onUnreadable, () => loadItem(ctx, issue, signal));
    if (item === undefined) continue;
    state.seen.add(key);
    changes.push({ kind: "upsert", item });
  }
  return changes;
}
