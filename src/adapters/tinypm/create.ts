import { NotFoundError, PayloadInvalidError, UsageError } from "../../core/errors.js";
import type { WorkItem, WorkItemDraft } from "../../core/model.js";
import { applyStoryFields, applyTaskFields, resolveIterationId } from "./patch.js";
import { readItem } from "./reads.js";
import { rawIdObject, rawTasks } from "./schema.js";
import type { DocumentCache } from "./document-cache.js";
import { writableFields } from "./writes.js";

/**
 * Create: the new id comes from the 2.6 id object (any root with an `id` child), else from
 * `Location`, else (2.0–2.5 answer 200 with no body) from listing again: the highest id that
 * was not there before and carries the draft's name. 2.0–2.5 creates are serialized so that
 * the before/after listings cannot mix two creates up.
 */
interface Listed {
  readonly id: string;
  readonly name: string;
}

async function listSiblings(
  session: DocumentCache,
  kind: "story" | "task",
  parentId: string | undefined,
): Promise<Listed[]> {
  if (kind === "story") return session.listStories();
  const list = await session.client.getXml(
    {
      path: `/userstory/${parentId ?? ""}/tasks`,
      operation: "GET /userstory/{id}/tasks",
      id: parentId,
    },
    rawTasks,
  );
  return (list.task ?? []).map((t) => ({ id: t.id.trim(), name: t.name ?? "" }));
}

/** The new id: 2.6 id object, else `Location`, else the highest new id with the draft's name. */
function idFromResponse(
  session: DocumentCache,
  operation: string,
  body: string,
  location: string | undefined,
): string | undefined {
  if (body.trim().startsWith("<")) {
    const parsed = session.client.parse({ operation }, body, rawIdObject);
    return parsed.id.trim();
  }
  const m = location ? /\/(\d+)\/?$/.exec(location) : null;
  return m?.[1];
}

function pickNew(
  after: readonly Listed[],
  before: readonly Listed[] | undefined,
  name: string,
): string | undefined {
  const old = new Set(before?.map((s) => s.id));
  const candidates = after
    .filter((s) => !old.has(s.id) && s.name === name)
    .map((s) => Number(s.id));
  return candidates.length === 0 ? undefined : String(Math.max(...candidates));
}

async function createOnce(
  session: DocumentCache,
  draft: WorkItemDraft,
  signal?: AbortSignal,
): Promise<WorkItem> {
  const ctx = await session.context();
  const fields = writableFields(draft.kind, draft);
  if (draft.kind === "task" && draft.parentId === undefined) {
    throw new UsageError("A tinyPM task needs its story: the draft has no parentId.");
  }
  const path = createPath(
    session,
    draft,
    ctx.version === "2.6" && draft.iteration ? resolveIterationId(draft.iteration, ctx) : undefined,
  );
  const doc =
    draft.kind === "story" ? applyStoryFields({}, fields, ctx) : applyTaskFields({}, fields, ctx);
  const before =
    ctx.version === "2.5" ? await listSiblings(session, draft.kind, draft.parentId) : undefined;
  const operation = `POST ${path.operation}`;
  const res = await session.client.send({
    method: "POST",
    path: path.path,
    operation,
    id: draft.parentId,
    body: { root: draft.kind === "story" ? "userStory" : "task", value: doc },
    signal,
  });
  const id =
    idFromResponse(session, operation, res.body, res.location) ??
    pickNew(await listSiblings(session, draft.kind, draft.parentId), before, draft.title);
  if (id === undefined) {
    throw new PayloadInvalidError(
      `tinyPM ${operation} gave no id and the new ${draft.kind} "${draft.title}" was not found by listing.`,
      {
        system: "tinypm",
        operation,
      },
    );
  }
  if (draft.kind === "task" && draft.parentId !== undefined)
    session.rememberParent(id, draft.parentId);
  const item = await readItem(session, { kind: draft.kind, id }, signal);
  if (!item)
    throw new NotFoundError(`tinyPM lost the ${draft.kind} ${id} it just created.`, {
      system: "tinypm",
      operation,
      id,
    });
  return item;
}

function createPath(
  session: DocumentCache,
  draft: WorkItemDraft,
  iterationId: string | undefined,
): { path: string; operation: string } {
  if (draft.kind === "task") {
    return { path: `/userstory/${draft.parentId ?? ""}/tasks`, operation: "/userstory/{id}/tasks" };
  }
  const q = "?addDefaultTasks=false";
  if (iterationId !== undefined)
    return {
      path: `/iteration/${iterationId}/userstories${q}`,
      operation: "/iteration/{id}/userstories",
    };
  return {
    path: `/project/${encodeURIComponent(session.projectId)}/userstories${q}`,
    operation: "/project/{id}/userstories",
  };
}

export async function createItem(
  session: DocumentCache,
  draft: WorkItemDraft,
  signal?: AbortSignal,
): Promise<WorkItem> {
  if ((await session.version()) === "2.5") {
    return session.createLock.run(() => createOnce(session, draft, signal));
  }
  return createOnce(session, draft, signal);
}
