import { NotFoundError } from "../../core/errors.js";
import type {
  Comment,
  CommentDraft,
  ItemRef,
  TimeEntry,
  TimeEntryDraft,
  WorkItem,
  WorkItemPatch,
} from "../../core/model.js";
import { markdownToAdf, type AdfDoc } from "./adf.js";
import { docFromPieces } from "./adf-blocks.js";
import type { IssueWrite } from "./client.js";
import type { JiraContext } from "./context.js";
import type { SiteInfo } from "./site.js";
import { propertyValue, setToFields, toComment, toTimeEntry, worklogStarted } from "./map.js";
import { forgetIssue, noteAdded } from "./known-versions.js";
import { fieldsOf, getItem, parseIssue, readFields, toItem } from "./reads.js";
import { PROPERTY_KEY, rawComment, rawWorklog } from "./schema.js";
import { moveToSprint, resolveSprint } from "./sprints.js";
import { attributeReadBack } from "./read-back.js";
import { checkNotStale, writtenAsRead } from "./stale.js";
import { transitionTo } from "./transition.js";

/**
 * Edits fields in one PUT, transitions when the status changed, moves the sprint when the
 * iteration changed and rewrites the entity property when metadata changed; then reads back
 * (a written field a person saved again before the read-back is answered as sent).
 */
export async function updateItem(
  ctx: JiraContext,
  ref: ItemRef,
  patch: WorkItemPatch,
  signal?: AbortSignal,
): Promise<WorkItem> {
  const site = await ctx.site();
  const fields = setToFields(patch.set, site.storyPointsField);
  if (patch.richDescription !== undefined && "description" in patch.set)
    fields.description = docFromPieces(patch.richDescription);
  const doc = "description" in patch.set ? (fields.description as AdfDoc) : undefined;
  // Jira's writes take no If-Match: the issue is read and compared with what the run planned
  // against before anything is written (a person's edit since then would be overwritten), in
  // the edit's own write turn when there is an edit.
  const edits = Object.keys(fields).length > 0;
  const check = (now: WorkItem): void => {
    checkNotStale({
      key: now.id,
      patch,
      current: now,
      doc,
      storyPointsField: site.storyPointsField,
    });
  };
  const current = edits
    ? await editedItem(ctx, ref, site, (now) => {
        check(now);
        return { fields };
      })
    : await getItem(ctx, ref);
  if (!current) throw noIssueToUpdate(ref.id);
  if (!edits) check(current);
  const key = current.id;
  const status = patch.set.status;
  if (status !== undefined && status !== current.status) {
    const issueType = current.kind === "task" ? ctx.settings.subtaskType : ctx.settings.storyType;
    await transitionTo(ctx, key, status, {
      signal,
      current: { status: current.status, issueType },
    });
  }
  if ("iteration" in patch.set && patch.set.iteration?.name !== current.iteration?.name) {
    const ref2 = patch.set.iteration;
    if (ref2) await moveToSprint(ctx, await resolveSprint(ctx, ref2), [key]);
    else await ctx.api.moveToBacklog([key]);
  }
  if (patch.metadata !== undefined || patch.marker !== undefined) {
    await ctx.api.setProperty(
      key,
      PROPERTY_KEY,
      propertyValue(patch.marker ?? current.marker, patch.metadata ?? current.metadata),
    );
  }
  const read = await getItem(ctx, ref);
  if (!read)
    throw new NotFoundError(`Jira issue ${key} vanished during the update.`, {
      system: "jira",
      operation: "GET /rest/api/3/issue/{key}",
      id: key,
    });
  // A person may save a written field between the writes and this read-back (read-back.ts).
  const sent = writtenAsRead({ set: patch.set, doc, storyPointsField: site.storyPointsField });
  return attributeReadBack(ctx, { key, current, read, sent, doc });
}

function noIssueToUpdate(id: string): NotFoundError {
  return new NotFoundError(`Jira has no issue ${id} to update.`, {
    system: "jira",
    operation: "PUT /rest/api/3/issue/{key}",
    id,
    status: 404,
  });
}

/**
 * The issue read and edited in one write turn (`getThenEditIssue`): `build` sees its fields as
 * read (comments and worklogs past the first page are read after, outside the turn) and answers
 * the edit. `undefined` when Jira has no such issue.
 */
async function editedItem(
  ctx: JiraContext,
  ref: ItemRef,
  site: SiteInfo,
  build: (now: WorkItem) => IssueWrite,
): Promise<WorkItem | undefined> {
  const operation = "GET /rest/api/3/issue/{key}";
  let raw: unknown;
  try {
    raw = await ctx.api.getThenEditIssue(
      ref.id,
      { fields: readFields(site), properties: [PROPERTY_KEY] },
      (got) => Promise.resolve(build(fieldsOf(ctx, site, parseIssue(ctx, got, ref.id, operation)))),
    );
  } catch (error) {
    if (error instanceof NotFoundError && error.operation.startsWith("GET ")) return undefined;
    throw error;
  }
  return toItem(ctx, parseIssue(ctx, raw, ref.id, operation));
}

export async function addComment(
  ctx: JiraContext,
  item: ItemRef,
  draft: CommentDraft,
  _signal?: AbortSignal,
): Promise<Comment> {
  const raw = await ctx.api.addComment(item.id, markdownToAdf(draft.body));
  const comment = answered(ctx, item.id, () =>
    toComment(
      ctx.client.parse(rawComment, raw, {
        operation: "POST /rest/api/3/issue/{key}/comment",
        id: item.id,
      }),
    ),
  );
  // The issue is now the version the engine holds plus this comment (no read-back needed).
  noteAdded(ctx.known, item.id, { comment });
  return comment;
}

/** Reads a write's answer; one that cannot be read leaves its issue unknown (known-versions.ts). */
function answered<T>(ctx: JiraContext, key: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    forgetIssue(ctx.known, key);
    throw error;
  }
}

export async function addTimeEntry(
  ctx: JiraContext,
  item: ItemRef,
  draft: TimeEntryDraft,
  _signal?: AbortSignal,
): Promise<TimeEntry> {
  const raw = await ctx.api.addWorklog(item.id, {
    started: worklogStarted(draft.date),
    timeSpentSeconds: Math.round(draft.hours * 3600),
    ...(draft.comment !== undefined &&
      draft.comment !== "" && { comment: markdownToAdf(draft.comment) }),
  });
  const worklog = answered(ctx, item.id, () =>
    toTimeEntry(
      ctx.client.parse(rawWorklog, raw, {
        operation: "POST /rest/api/3/issue/{key}/worklog",
        id: item.id,
      }),
    ),
  );
  noteAdded(ctx.known, item.id, { worklog });
  return worklog;
}

export async function deleteItem(
  ctx: JiraContext,
  ref: ItemRef,
  _signal?: AbortSignal,
): Promise<void> {
  await ctx.api.deleteIssue(ref.id);
}
