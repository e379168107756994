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

/** The status an issue event sets (`closed` with its reason, none read as completed; `reopened`), if any. */
function statusSetBy(e: { event: string; state_reason?: string | null | undefined }) {
  if (e.event === "closed") return statusOf({ state: "closed", state_reason: e.state_reason });
  return e.event === "reopened" ? "open" : undefined;
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
    const next = statusSetBy(e);
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
 * Whether issue `number` left `status` (`open`, `closed:<reason>`) after `since` (ISO, by
 * GitHub's clock: the issue's `updated_at` stored with the base), whatever its state is now. Each
 * event's status before it is known by replaying the events from the open the issue was created
 * with. A change that arrives at `status` — the tool's own close or reopen that made it — never
 * counts. Events carry whole seconds: in the very second of `since`, a change away from `status`
 * that is undone within that second is taken for one the base's own write undid (a person's
 * change and set back both in the second of the sync's write is missed); one that lasts past it
 * counts.
 */
export async function statusLeftSince(
  ctx: GithubContext,
  number: string,
  status: string,
  since: string,
  signal?: AbortSignal,
): Promise<boolean> {
  const events: RawEvent[] = [];
  for await (const e of issueEvents(ctx, number, signal)) events.push(e);
  return leftSince(events, status, since);
}

/** `statusLeftSince` over events already read (pure). */
export function leftSince(
  events: readonly {
    event: string;
    state_reason?: string | null | undefined;
    created_at?: string | null | undefined;
  }[],
  status: string,
  since: string,
): boolean {
  const second = Math.floor(Date.parse(since) / 1000);
  // Each change of status: the status it left, the one it arrived at, its second.
  const changes: { from: string; to: string; at: number }[] = [];
  let held = "open";
  for (const e of events) {
    const next = statusSetBy(e);
    if (next === undefined || next === held) continue;
    const at = e.created_at == null ? Number.NaN : Math.floor(Date.parse(e.created_at) / 1000);
    changes.push({ from: held, to: next, at });
    held = next;
  }
  return changes.some(
    (c, i) =>
      c.from === status &&
      (c.at > second ||
        (c.at === second && !changes.slice(i + 1).some((d) => d.to === status && d.at === second))),
  );
}
