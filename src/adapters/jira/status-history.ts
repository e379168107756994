import { z } from "zod";
import type { JiraContext } from "./context.js";

const CHANGELOG = "GET /rest/api/3/issue/{key}/changelog";
const PAGE = 100;

const rawChangelogPage = z.object({
  isLast: z.boolean().optional(),
  total: z.number().optional(),
  values: z
    .array(
      z.object({
        created: z.string().optional(),
        items: z
          .array(
            z.object({
              field: z.string().optional(),
              fieldId: z.string().optional(),
              fromString: z.string().nullish(),
              toString: z.string().nullish(),
            }),
          )
          .default([]),
      }),
    )
    .default([]),
});
const rawStatusOnly = z.object({
  fields: z.object({ status: z.object({ name: z.string() }) }),
});

interface StatusItem {
  readonly fromString?: string | null | undefined;
  readonly toString?: string | null | undefined;
}

/**
 * Every status an issue has held, oldest first (pure): the first change's `from` is the status it
 * was created with (its current one when it never changed), then each change's `to`, and
 * `current` last when the changes do not end there.
 */
export function statusesFromChangelog(changes: readonly StatusItem[], current: string): string[] {
  const out: string[] = [];
  for (const c of changes) {
    if (out.length === 0 && c.fromString != null) out.push(c.fromString);
    if (c.toString != null && c.toString !== out.at(-1)) out.push(c.toString);
  }
  if (out.at(-1) !== current) out.push(current);
  return out;
}

export type ChangelogEntry = z.infer<typeof rawChangelogPage>["values"][number];

const isStatus = (i: { field?: string | undefined; fieldId?: string | undefined }): boolean =>
  (i.fieldId ?? i.field) === "status";

/** Every entry of issue `key`'s changelog, oldest first (paged). */
export async function changelog(ctx: JiraContext, key: string): Promise<ChangelogEntry[]> {
  const entries: ChangelogEntry[] = [];
  for (let startAt = 0; ;) {
    const raw = await ctx.client.send({
      operation: CHANGELOG,
      kind: "issue.changelog",
      write: false,
      id: key,
      call: ({ v3 }) =>
        v3.issues.getChangeLogs<unknown>({ issueIdOrKey: key, startAt, maxResults: PAGE }),
    });
    const page = ctx.client.parse(rawChangelogPage, raw, { operation: CHANGELOG, id: key });
    entries.push(...page.values);
    startAt += page.values.length;
    if (page.values.length === 0 || page.isLast === true || startAt >= (page.total ?? startAt))
      break;
  }
  return entries;
}

/** The statuses issue `key` has held, from its changelog (paged) and its current status. */
export async function statusHistory(ctx: JiraContext, key: string): Promise<string[]> {
  const changes: StatusItem[] = (await changelog(ctx, key)).flatMap((v) =>
    v.items.filter(isStatus),
  );
  const issue = ctx.client.parse(rawStatusOnly, await ctx.api.getIssue(key, ["status"], []), {
    operation: "GET /rest/api/3/issue/{key}",
    id: key,
  });
  return statusesFromChangelog(changes, issue.fields.status.name);
}

/**
 * Whether issue `key` left status `status` (a name) after `since` (ISO), whatever it is now: a
 * changelog entry from that status to another one. A change that arrives at `status` — the
 * tool's own transitions that made it, each step of a walk along the workflow included — never
 * counts, so a clock skew between Jira and this host cannot pass the tool's own write off as a
 * person's.
 */
export async function statusLeftSince(
  ctx: JiraContext,
  key: string,
  status: string,
  since: string,
): Promise<boolean> {
  return leftSince(await changelog(ctx, key), status, since);
}

/** `statusLeftSince` over changelog entries already read (pure). */
export function leftSince(
  entries: readonly ChangelogEntry[],
  status: string,
  since: string,
): boolean {
  const after = Date.parse(since);
  const same = (a: string | null | undefined): boolean => a?.toLowerCase() === status.toLowerCase();
  const leaves = (i: ChangelogEntry["items"][number]): boolean => {
    const { fromString: from, toString: to } = i;
    return isStatus(i) && same(from) && !same(to);
  };
  return entries.some(
    (v) => !(v.created !== undefined && Date.parse(v.created) < after) && v.items.some(leaves),
  );
}
