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

/** The statuses issue `key` has held, from its changelog (paged) and its current status. */
export async function statusHistory(ctx: JiraContext, key: string): Promise<string[]> {
  const changes: StatusItem[] = [];
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
    for (const v of page.values)
      changes.push(...v.items.filter((i) => (i.fieldId ?? i.field) === "status"));
    startAt += page.values.length;
    if (page.values.length === 0 || page.isLast === true || startAt >= (page.total ?? startAt))
      break;
  }
  const issue = ctx.client.parse(rawStatusOnly, await ctx.api.getIssue(key, ["status"], []), {
    operation: "GET /rest/api/3/issue/{key}",
    id: key,
  });
  return statusesFromChangelog(changes, issue.fields.status.name);
}
