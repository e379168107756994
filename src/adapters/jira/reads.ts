import { NotFoundError } from "../../core/errors.js";
import type { ItemRef, Marker, WorkItem } from "../../core/model.js";
import type { ListQuery } from "../../core/tracker.js";
import { markerKey, type JiraContext } from "./context.js";
import { childrenJql, createdSinceJql, keysJql, markerJql, projectJql } from "./jql.js";
import { toWorkItem, type IssueExtras } from "./map.js";
import {
  PROPERTY_KEY,
  rawMarkerProperty,
  rawMarkerScanPage,
  rawCommentPage,
  rawIssue,
  rawSearchPage,
  rawWorklogPage,
  type RawComment,
  type RawIssue,
} from "./schema.js";
import type { SiteInfo } from "./site.js";
import {
  issueIdentity,
  issueOrUnreadable,
  type IssueIdentity,
  type OnUnreadable,
} from "./unreadable.js";

const BASE_FIELDS = [
  "summary",
  "description",
  "status",
  "priority",
  "labels",
  "assignee",
  "issuetype",
  "parent",
  "updated",
  "created",
  "resolution",
  "comment",
  "worklog",
];

/** The fields every issue read asks for. */
export function readFields(site: SiteInfo): string[] {
  return [
    ...BASE_FIELDS,
    site.sprintField,
    ...(site.storyPointsField ? [site.storyPointsField] : []),
  ];
}

/**
 * Pages of validated raw issues for a JQL query (`nextPageToken` / `isLast`). Each issue is
 * validated on its own: with `onUnreadable`, one that fails is handed there and left out.
 */
export async function* searchIssues(
  ctx: JiraContext,
  jql: string,
  reconcile?: readonly number[],
  onUnreadable?: OnUnreadable,
): AsyncGenerator<RawIssue[]> {
  const site = await ctx.site();
  let token: string | undefined;
  do {
    const raw = await ctx.api.search({
      jql,
      fields: readFields(site),
      properties: [PROPERTY_KEY],
      maxResults: ctx.settings.pageSize,
      nextPageToken: token,
      reconcileIssues: reconcile,
    });
    const operation = "POST /rest/api/3/search/jql";
    const page = ctx.client.parse(rawSearchPage, raw, { operation });
    const issues: RawIssue[] = [];
    for (const one of page.issues) {
      const who = issueIdentity(one);
      const issue = await issueOrUnreadable(who, onUnreadable, () =>
        ctx.client.parse(rawIssue, one, { operation, id: who?.id }),
      );
      if (issue !== undefined) issues.push(issue);
    }
    yield issues;
    token =
      page.isLast === false || (page.isLast === undefined && page.nextPageToken)
        ? (page.nextPageToken ?? undefined)
        : undefined;
  } while (token);
}

/** Fetches what the embedded comment/worklog lists left out (Jira embeds at most 20 worklogs). */
async function extrasFor(ctx: JiraContext, raw: RawIssue): Promise<IssueExtras> {
  const f = raw.fields;
  const extras: { comments?: IssueExtras["comments"]; worklogs?: IssueExtras["worklogs"] } = {};
  if (f.comment && (f.comment.total ?? 0) > f.comment.comments.length) {
    const all: RawComment[] = [];
    while (all.length < (f.comment.total ?? 0)) {
      const page: { comments: RawComment[] } = ctx.client.parse(
        rawCommentPage,
        await ctx.api.getComments(raw.key, all.length),
        {
          operation: "GET /rest/api/3/issue/{key}/comment",
          id: raw.key,
        },
      );
      all.push(...page.comments);
      if (page.comments.length === 0) break;
    }
    extras.comments = all;
  }
  if (f.worklog && (f.worklog.total ?? 0) > f.worklog.worklogs.length) {
    const page = ctx.client.parse(rawWorklogPage, await ctx.api.getWorklogs(raw.key, 0), {
      operation: "GET /rest/api/3/issue/{key}/worklog",
      id: raw.key,
    });
    extras.worklogs = page.worklogs;
  }
  return extras;
}

function mapContext(ctx: JiraContext, site: SiteInfo) {
  return {
    baseUrl: ctx.settings.baseUrl,
    storyPointsField: site.storyPointsField,
    sprintField: site.sprintField,
    blockLost: ctx.client.blockLost,
  };
}

export async function toItem(ctx: JiraContext, raw: RawIssue): Promise<WorkItem> {
  const site = await ctx.site();
  return toWorkItem(raw, mapContext(ctx, site), await extrasFor(ctx, raw));
}

/**
 * An issue's fields as read, with no request: comments and worklogs past the first page of
 * each are left out (what an update compares holds neither).
 */
export function fieldsOf(ctx: JiraContext, site: SiteInfo, raw: RawIssue): WorkItem {
  return toWorkItem(raw, mapContext(ctx, site), {});
}

/** An issue payload validated (a mismatch names the endpoint and the issue). */
export function parseIssue(
  ctx: JiraContext,
  data: unknown,
  id: string,
  operation: string,
): RawIssue {
  return ctx.client.parse(rawIssue, data, { operation, id });
}

/**
 * One issue by key; `undefined` when Jira answers 404 (deleted, or no longer shown: Jira tells
 * them apart no more than that). With `onUnreadable`, one whose payload fails validation is
 * handed there and `undefined` returned.
 */
export async function getItem(
  ctx: JiraContext,
  ref: ItemRef,
  onUnreadable?: OnUnreadable,
): Promise<WorkItem | undefined> {
  const site = await ctx.site();
  let raw: unknown;
  try {
    raw = await ctx.api.getIssue(ref.id, readFields(site), [PROPERTY_KEY]);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
  const who = { ...issueIdentity(raw), kind: ref.kind, id: ref.id };
  return issueOrUnreadable(who, onUnreadable, () =>
    toItem(
      ctx,
      ctx.client.parse(rawIssue, raw, { operation: "GET /rest/api/3/issue/{key}", id: ref.id }),
    ),
  );
}

/** The issue a raw one names, for an item that fails after its own validation (its extras). */
export function identityOf(raw: RawIssue): IssueIdentity {
  return {
    kind: raw.fields.issuetype.subtask === true ? "task" : "story",
    id: raw.key,
    title: raw.fields.summary,
  };
}

export async function* listItems(
  ctx: JiraContext,
  query: ListQuery,
  onUnreadable?: OnUnreadable,
): AsyncGenerator<WorkItem> {
  const jql =
    query.parentId === undefined
      ? projectJql(ctx.settings.projectKey)
      : childrenJql(ctx.settings.projectKey, query.parentId);
  for await (const page of searchIssues(ctx, jql, undefined, onUnreadable)) {
    for (const raw of page) {
      const item = await issueOrUnreadable(identityOf(raw), onUnreadable, () => toItem(ctx, raw));
      if (item === undefined) continue;
      if (query.kind !== undefined && item.kind !== query.kind) continue;
      if (query.parentId !== undefined && item.parentId !== query.parentId) continue;
      yield item;
    }
  }
}

/** Reads issues by key, asking search to reconcile the given (fresh) ids. */
export async function readByKeys(
  ctx: JiraContext,
  keys: readonly string[],
  ids: readonly number[] = [],
): Promise<Map<string, WorkItem>> {
  const out = new Map<string, WorkItem>();
  for (let i = 0; i < keys.length; i += 50) {
    const chunk = keys.slice(i, i + 50);
    const reconcile = ids.slice(i, i + 50).filter((id) => Number.isFinite(id));
    for await (const page of searchIssues(
      ctx,
      keysJql(chunk),
      reconcile.length > 0 ? reconcile : undefined,
    )) {
      for (const raw of page) out.set(raw.key, await toItem(ctx, raw));
    }
  }
  return out;
}

/**
 * The issue carrying `marker`: JQL on the entity property first; then this instance's own creates
 * (search lags behind writes); then a scan of recently created issues' properties, which works
 * even where the property is not JQL-indexed (real Jira Cloud indexes entity properties only for
 * apps that declare them).
 */
export async function findItemByMarker(
  ctx: JiraContext,
  marker: Marker,
): Promise<WorkItem | undefined> {
  const jql = markerJql(ctx.settings.projectKey, PROPERTY_KEY, marker);
  for await (const page of searchIssues(ctx, jql)) {
    const first = page[0];
    if (first) return toItem(ctx, first);
  }
  const wanted = markerKey(marker);
  const key = ctx.created.get(wanted) ?? (await scanMarkers(ctx)).get(wanted);
  if (key === undefined) return undefined;
  const item = await getItem(ctx, { kind: marker.originKind, id: key });
  return item?.marker && markerKey(item.marker) === wanted ? item : undefined;
}

/** Reads the marker property of issues created since the last scan (keys and properties only). */
async function scanMarkers(ctx: JiraContext): Promise<ReadonlyMap<string, string>> {
  const index = ctx.markerIndex;
  const now = Date.now();
  const since =
    index.scannedToMs === undefined
      ? now - ctx.settings.markerScanMs
      : index.scannedToMs - ctx.settings.overlapMs;
  let token: string | undefined;
  do {
    const raw = await ctx.api.search({
      jql: createdSinceJql(ctx.settings.projectKey, since),
      fields: ["summary"],
      properties: [PROPERTY_KEY],
      maxResults: 1000,
      nextPageToken: token,
    });
    const page = ctx.client.parse(rawMarkerScanPage, raw, {
      operation: "POST /rest/api/3/search/jql",
    });
    for (const issue of page.issues) {
      const prop = rawMarkerProperty.safeParse(issue.properties?.[PROPERTY_KEY] ?? {});
      if (prop.success && prop.data.marker) index.keys.set(markerKey(prop.data.marker), issue.key);
    }
    token = page.isLast === false ? (page.nextPageToken ?? undefined) : undefined;
  } while (token);
  index.scannedToMs = now;
  return index.keys;
}
