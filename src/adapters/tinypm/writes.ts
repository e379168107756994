import { UsageError } from "../../core/errors.js";
import type {
  Comment,
  CommentDraft,
  ItemRef,
  TimeEntry,
  TimeEntryDraft,
  WorkItemFieldName,
  WorkItemFields,
} from "../../core/model.js";
import { WORK_ITEM_FIELD_NAMES } from "../../core/model.js";
import { formatDecimal, isoToLongDate, toComment, toTimeEntry } from "./map.js";
import { resolveUserId } from "./patch.js";
import { rawActivity, rawComment } from "./schema.js";
import type { DocumentCache } from "./document-cache.js";
import type { XmlNode } from "./wire.js";

const STORY_FIELDS: readonly WorkItemFieldName[] = WORK_ITEM_FIELD_NAMES.filter(
  (n) => n !== "startedAt" && n !== "completedAt",
);
const TASK_FIELDS: readonly WorkItemFieldName[] = [
  "title",
  "description",
  "status",
  "estimate",
  "assignees",
  "startedAt",
  "completedAt",
];

/** The fields of `item` that tinyPM holds for its kind (undefined ones left out). */
export function writableFields(
  kind: "story" | "task",
  item: Partial<WorkItemFields>,
): Partial<WorkItemFields> {
  const names = kind === "story" ? STORY_FIELDS : TASK_FIELDS;
  const out: Record<string, unknown> = {};
  for (const name of names) {
    if (Object.prototype.hasOwnProperty.call(item, name) && item[name] !== undefined)
      out[name] = item[name];
  }
  if (kind === "task" && out.status === "") delete out.status;
  return out;
}

export async function deleteItem(
  session: DocumentCache,
  ref: ItemRef,
  signal?: AbortSignal,
): Promise<void> {
  const seg = ref.kind === "story" ? "userstory" : "task";
  await session.client.send({
    method: "DELETE",
    path: `/${seg}/${ref.id}`,
    operation: `DELETE /${seg}/{id}`,
    id: ref.id,
    signal,
  });
  if (ref.kind === "task") session.forgetTask(ref.id);
}

async function require26(session: DocumentCache, what: string): Promise<void> {
  if ((await session.version()) !== "2.6") {
    throw new UsageError(`tinyPM 2.0–2.5 has no ${what} API (it arrived in 2.6).`, {
      hint: "Upgrade the tinyPM server to 2.6, or leave this out of the mapping.",
    });
  }
}

export async function addComment(
  session: DocumentCache,
  ref: ItemRef,
  draft: CommentDraft,
  signal?: AbortSignal,
): Promise<Comment> {
  await require26(session, "comment");
  const ctx = await session.context();
  const author =
    draft.author.name ??
    ctx.users.find((u) => u.id === resolveUserId(draft.author, ctx.users))?.name;
  const seg = ref.kind === "story" ? "userstory" : "task";
  const operation = `POST /${seg}/{id}/comments`;
  const value: XmlNode = {
    ...(author !== undefined && { author }),
    ...(draft.createdAt !== "" && { date: isoToLongDate(draft.createdAt) }),
    body: draft.body,
  };
  const res = await session.client.send({
    method: "POST",
    path: `/${seg}/${ref.id}/comments`,
    operation,
    id: ref.id,
    body: { root: "comment", value },
    signal,
  });
  if (!res.body.trim().startsWith("<"))
    return { author: draft.author, createdAt: draft.createdAt, body: draft.body };
  return toComment(session.client.parse({ operation, id: ref.id }, res.body, rawComment), ctx);
}

export async function addTimeEntry(
  session: DocumentCache,
  ref: ItemRef,
  draft: TimeEntryDraft,
  signal?: AbortSignal,
): Promise<TimeEntry> {
  if (ref.kind !== "task") throw new UsageError("tinyPM books time on tasks only, not on stories.");
  await require26(session, "timesheet");
  const ctx = await session.context();
  const operation = "POST /task/{id}/timesheet";
  const value: XmlNode = {
    date: draft.date,
    timeSpent: formatDecimal(draft.hours),
    ...(draft.remainingHours !== undefined && { timeLeft: formatDecimal(draft.remainingHours) }),
    user: { id: resolveUserId(draft.user, ctx.users) },
  };
  const res = await session.client.send({
    method: "POST",
    path: `/task/${ref.id}/timesheet`,
    operation,
    id: ref.id,
    body: { root: "activity", value },
    signal,
  });
  if (!res.body.trim().startsWith("<")) return { ...draft };
  return toTimeEntry(session.client.parse({ operation, id: ref.id }, res.body, rawActivity));
}
