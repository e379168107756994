/** The Jira change feed: issues updated since the checkpoint, each emitted once per version. */
import type { WorkItem } from "../../core/model.js";
import type { ChangePage, Checkpoint } from "../../core/tracker.js";
import { advanceFeed, decodeCheckpoint, encodeCheckpoint, querySince } from "./checkpoint.js";
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
  let yielded = false;
  for await (const page of searchIssues(ctx, jql, undefined, onUnreadable)) {
    const items: WorkItem[] = [];
    for (const raw of page) {
      const item = await issueOrUnreadable(identityOf(raw), onUnreadable, () => toItem(ctx, raw));
      if (item !== undefined) items.push(item);
    }
    const next = advanceFeed({ state, items, overlapMs: ctx.settings.overlapMs });
    state = next.state;
    yielded = true;
    yield {
      changes: next.fresh.map((item) => ({ kind: "upsert" as const, item })),
      checkpoint: encodeCheckpoint(state),
      complete: false,
    };
  }
  if (!yielded || full) {
    yield {
      changes: [],
      checkpoint: encodeCheckpoint(state ?? { updatedMs: 0, seen: new Map() }),
      complete: full,
    };
  }
}
