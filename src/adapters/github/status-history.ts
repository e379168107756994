import { z } from "zod";
import type { GithubRequest } from "./client.js";
import type { GithubContext } from "./context.js";
import { statusOf } from "./map.js";
import { mustGetRawIssue } from "./reads.js";
import { pages, parse } from "./requests.js";

const rawEventSchema = z.object({
  event: z.string(),
  state_reason: z.string().nullish(),
  created_at: z.string().nullish(),
});
type RawEvent = z.infer<typeof rawEventSchema>;

/** The events of issue `number`, oldest first, page by page. */
async function* issueEvents(
  ctx: GithubContext,
  number: string,
  signal?: AbortSignal,
): AsyncGenerator<RawEvent> {
  const operation = "issues.listEvents";
  const first: GithubRequest = {
    method: "GET",
    url: "/repos/{owner}/{repo}/issues/{issue_number}/events",
    params: { issue_number: Number(number), per_page: 100 },
    operation,
    id: number,
    signal,
  };
  for await (const page of pages(ctx, first)) {
    if (page === "not-modified") continue;
    yield* parse(rawEventSchema.array(), page.items, { operation, id: number });
  }
}

/**
 * Every status an issue has held, oldest first (pure): an issue is created open, each `closed`
 * event closes it with its reason (none read as completed), each `reopened` opens it again;
 * `current` (the issue as read now) ends the list when the events do not already.
 */
export function statusesFromEvents(
  events: readonly { event: string; state_reason?: string | null | undefined }[],
  current: string,
): string[] {
  const out = ["open"];
  for (const e of events) {
    const next =
      e.event === "closed"
        ? statusOf({ state: "closed", state_reason: e.state_reason })
        : e.event === "reopened"
          ? "open"
          : undefined;
    if (next !== undefined && next !== out.at(-1)) out.push(next);
  }
  if (out.at(-1) !== current) out.push(current);
  return out;
}

/** The statuses issue `number` has held, from its events (paged) and its current state. */
export async function statusHistory(
  ctx: GithubContext,
  number: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const issue = await mustGetRawIssue(ctx, number, signal);
  const events: RawEvent[] = [];
  for await (const e of issueEvents(ctx, number, signal)) events.push(e);
  return statusesFromEvents(events, statusOf(issue));
}

/**
 * Whether issue `number` was closed or reopened after `since` (ISO; its events carry whole
 * seconds, so an event in the second of `since` does not count), whatever its state is now.
 */
export async function statusChangedSince(
  ctx: GithubContext,
  number: string,
  since: string,
  signal?: AbortSignal,
): Promise<boolean> {
  const after = Date.parse(since);
  for await (const e of issueEvents(ctx, number, signal)) {
    if (e.event !== "closed" && e.event !== "reopened") continue;
    if (e.created_at != null && Date.parse(e.created_at) > after) return true;
  }
  return false;
}
