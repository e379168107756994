/** The Jira change feed: issues updated since the checkpoint, each emitted once per version. */
import type { WorkItem } from "../../core/model.js";
import type { ChangePage, Checkpoint } from "../../core/tracker.js";
import {
  advanceFeed,
  decodeCheckpoint,
  encodeCheckpoint,
  querySince,
  searchedAt,
} from "./checkpoint.js";
import type { JiraContext } from "./context.js";
import { updatedSinceJql } from "./jql.js";
import { identityOf, searchIssues, toItem } from "./reads.js";
import { issueOrUnreadable, type OnUnreadable } from "./unreadable.js";

export async function* changeFeed(
  ctx: JiraContext,
  from: Checkpoint | undefined,
  /**
   * Where an issue whose payload fails validation goes (else the feed fails). It is left out of
   * the checkpoint's versions: the engine reads a parked issue by key on the next run (read.ts).
   */
  onUnreadable?: OnUnreadable,
): AsyncGenerator<ChangePage> {
  let state = decodeCheckpoint(from);
  // Without a checkpoint the search lists the whole project: a linked issue it leaves out may be
  // gone (the engine reads each such issue by key before it takes it for deleted).
  const full = state === undefined;
  const jql = updatedSinceJql(ctx.settings.projectKey, querySince(state, ctx.settings.overlapMs));
  // When the search began, on the site's clock (its answers' `Date` headers, never ahead of it):
  // once the search is read to its end, every issue updated before this less the overlap has
  // been seen (checkpoint.ts). Only the last page's checkpoint says so; a run cut short after an
  // earlier page resumes from that page's.
  // (The site's fields are what the search asks for: loading them first is no extra request,
  // and gives a run's first answer, hence the clock, before the search.)
  await ctx.site();
  const readAt = ctx.client.serverNow()?.getTime();
  // One page is held back until the next arrives, so that the last can carry the search's end.
  let held: WorkItem[] | undefined;
  const page = (fresh: readonly WorkItem[], last: boolean): ChangePage => ({
    changes: fresh.map((item) => ({ kind: "upsert" as const, item })),
    checkpoint: encodeCheckpoint(
      last
        ? searchedAt(state ?? { updatedMs: 0, seen: new Map() }, readAt)
        : (state ?? { updatedMs: 0, seen: new Map() }),
    ),
    complete: last && full,
  });
  for await (const raw of searchIssues(ctx, jql, undefined, onUnreadable)) {
    const items: WorkItem[] = [];
    for (const r of raw) {
      const item = await issueOrUnreadable(identityOf(r), onUnreadable, () => toItem(ctx, r));
      if (item !== undefined) items.push(item);
    }
    if (held !== undefined) yield page(held, false);
    const next = advanceFeed({ state, items, overlapMs: ctx.settings.overlapMs });
    state = next.state;
    held = next.fresh;
  }
  yield page(held ?? [], true);
}
