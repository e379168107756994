import { ConflictError, NotFoundError, UsageError } from "../../core/errors.js";
import type {
  Comment,
  CommentDraft,
  ItemRef,
  TimeEntry,
  TimeEntryDraft,
  WorkItem,
  WorkItemFieldName,
  WorkItemFields,
  WorkItemPatch,
} from "../../core/model.js";
import { WORK_ITEM_FIELD_NAMES } from "../../core/model.js";
import {
  formatDecimal,
  isoToLongDate,
  storyToItem,
  taskToItem,
  toComment,
  toTimeEntry,
} from "./map.js";
import { applyStoryFields, applyTaskFields, changedFields, resolveUserId } from "./patch.js";
import { readItem } from "./reads.js";
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

/** The names a conflict check compares: the fields being written and every field `base` has. */
function comparedNames(set: Partial<WorkItemFields>, base: WorkItem): Set<WorkItemFieldName> {
  const names = new Set<WorkItemFieldName>();
  for (const name of WORK_ITEM_FIELD_NAMES) {
    if (Object.prototype.hasOwnProperty.call(set, name) || base[name] !== undefined)
      names.add(name);
  }
  return names;
}

/** Fresh GET → compare with base → apply only `set` → PUT of the complete document. */
export async function updateItem(
  session: DocumentCache,
  ref: ItemRef,
  patch: WorkItemPatch,
  signal?: AbortSignal,
): Promise<WorkItem> {
  const seg = ref.kind === "story" ? "userstory" : "task";
  const operation = `PUT /${seg}/{id}`;
  const ctx = await session.context();
  const fresh =
    ref.kind === "story"
      ? await session.getStory(ref.id, signal)
      : await session.getTask(ref.id, signal);
  if (!fresh)
    throw new NotFoundError(`tinyPM has no ${ref.kind} ${ref.id} to update.`, {
      system: "tinypm",
      operation,
      id: ref.id,
      status: 404,
    });
  const current: WorkItemFields =
    ref.kind === "story" ? storyToItem(fresh.data, ctx, []) : taskToItem(fresh.data, ctx);
  if (patch.base) {
    const compared = comparedNames(patch.set, patch.base);
    // A field already holding the value being written is no conflict: a retry after a lost
    // answer finds its own earlier PUT there.
    const pending = new Set(changedFields({ ...patch.base, ...patch.set }, current));
    const changed = changedFields(patch.base, current).filter(
      (n) => compared.has(n) && pending.has(n),
    );
    if (changed.length > 0) {
      throw new ConflictError(
        `tinyPM ${ref.kind} ${ref.id} changed since it was planned against (${changed.join(", ")}); nothing was written.`,
        {
          system: "tinypm",
          operation,
          id: ref.id,
        },
        {
          hint: "Run the sync again: it re-plans against the current content.",
          details: { fields: changed },
        },
      );
    }
  }
  const set = writableFields(ref.kind, patch.set);
  const cleared = Object.keys(patch.set).filter(
    (k) => (patch.set as Record<string, unknown>)[k] === undefined,
  );
  const withClears = {
    ...set,
    ...Object.fromEntries(cleared.map((k) => [k, undefined])),
  } as Partial<WorkItemFields>;
  const doc: XmlNode =
    ref.kind === "story"
      ? applyStoryFields(fresh.node, withClears, ctx)
      : applyTaskFields(fresh.node, withClears, ctx);
  await session.client.send({
    method: "PUT",
    path: `/${seg}/${ref.id}`,
    operation,
    id: ref.id,
    body: { root: ref.kind === "story" ? "userStory" : "task", value: doc },
    signal,
  });
  const item = await readItem(session, ref, signal);
  if (!item)
    throw new NotFoundError(`tinyPM ${ref.kind} ${ref.id} vanished after its update.`, {
      system: "tinypm",
      operation,
      id: ref.id,
    });
  return item;
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
