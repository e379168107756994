import type { z } from "zod";
import { NotFoundError } from "../../core/errors.js";
import type {
  ItemRef,
  WorkItem,
  WorkItemFieldName,
  WorkItemFields,
  WorkItemPatch,
} from "../../core/model.js";
import { WORK_ITEM_FIELD_NAMES } from "../../core/model.js";
import { staleError, staleFields } from "../../core/stale-fields.js";
import type { DocumentCache } from "./document-cache.js";
import { storyToItem, taskToItem, type MapContext } from "./map.js";
import { applyStoryFields, applyTaskFields, sameValue } from "./patch.js";
import { readItem } from "./reads.js";
import { rawStory, rawTask } from "./schema.js";
import type { XmlNode, XmlValue } from "./wire.js";
import { writableFields } from "./writes.js";

/**
 * An update of a story or a task. tinyPM takes no If-Match and replaces the whole document on a
 * PUT, so the update reads the document and PUTs it back in one write of the request gate
 * (`client.replace`): the read is made once the write's turn has come, and the PUT follows it
 * with nothing awaited in between. The PUT is the document just read with only the fields being
 * written replaced: every other field goes back as tinyPM held it a moment before, a person's
 * edit since the run's read included. A field being written that a person changed since the run
 * planned against `patch.base` is a `ConflictError` with nothing written.
 */

interface KindSpec<T extends z.ZodType> {
  readonly seg: "userstory" | "task";
  readonly root: "userStory" | "task";
  readonly schema: T;
  readonly toItem: (data: z.infer<T>, ctx: MapContext) => WorkItem;
  readonly apply: (raw: XmlNode, set: Partial<WorkItemFields>, ctx: MapContext) => XmlNode;
}

const STORY: KindSpec<typeof rawStory> = {
  seg: "userstory",
  root: "userStory",
  schema: rawStory,
  toItem: (data, ctx) => storyToItem(data, ctx, []),
  apply: applyStoryFields,
};

const TASK: KindSpec<typeof rawTask> = {
  seg: "task",
  root: "task",
  schema: rawTask,
  toItem: (data, ctx) => taskToItem(data, ctx),
  apply: applyTaskFields,
};

const asNode = (v: XmlValue): XmlNode => (v && typeof v === "object" && !Array.isArray(v) ? v : {});

/** The fields the PUT replaces: those tinyPM holds for the kind, and the ones cleared. */
function fieldsToWrite(kind: "story" | "task", set: Partial<WorkItemFields>) {
  const cleared = Object.keys(set).filter((k) => (set as Record<string, unknown>)[k] === undefined);
  return {
    ...writableFields(kind, set),
    ...Object.fromEntries(cleared.map((k) => [k, undefined])),
  } as Partial<WorkItemFields>;
}

/**
 * The item read back after the PUT, with each written field as the PUT sent it wherever the
 * read-back differs. tinyPM stores what it is sent, so such a difference is a person's save that
 * landed between the PUT and the read-back: it must stay a change for the next run to carry over,
 * not be taken as what this update wrote (the caller keeps the written fields as the base).
 */
function writtenAsSent(
  after: WorkItem,
  sent: WorkItem,
  written: ReadonlySet<WorkItemFieldName>,
): WorkItem {
  const out: Record<string, unknown> = { ...after };
  for (const name of WORK_ITEM_FIELD_NAMES) {
    if (!written.has(name) || sameValue(name, after, sent)) continue;
    if (sent[name] === undefined) Reflect.deleteProperty(out, name);
    else out[name] = sent[name];
  }
  return out as unknown as WorkItem;
}

async function replace<T extends z.ZodType>(
  session: DocumentCache,
  spec: KindSpec<T>,
  ref: ItemRef,
  patch: WorkItemPatch,
  signal: AbortSignal | undefined,
): Promise<WorkItem> {
  const operation = `PUT /${spec.seg}/{id}`;
  const ctx = await session.context();
  const write = fieldsToWrite(ref.kind, patch.set);
  let sent: XmlValue;
  try {
    ({ sent } = await session.client.replace({
      path: `/${spec.seg}/${ref.id}`,
      readOperation: `GET /${spec.seg}/{id}`,
      writeOperation: operation,
      id: ref.id,
      root: spec.root,
      schema: spec.schema,
      signal,
      build: (read) => {
        const base = patch.base;
        if (base !== undefined) {
          const fields = staleFields(patch.set, base, spec.toItem(read.data, ctx), sameValue);
          if (fields.length > 0)
            throw staleError({
              system: "tinypm",
              what: `tinyPM ${ref.kind} ${ref.id}`,
              id: ref.id,
              operation,
              fields,
            });
        }
        return spec.apply(asNode(read.node), write, ctx);
      },
    }));
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    throw new NotFoundError(
      `tinyPM has no ${ref.kind} ${ref.id} to update.`,
      { system: "tinypm", operation, id: ref.id, status: 404 },
      { cause: error },
    );
  }
  const after = await readItem(session, ref, signal);
  if (!after)
    throw new NotFoundError(`tinyPM ${ref.kind} ${ref.id} vanished after its update.`, {
      system: "tinypm",
      operation,
      id: ref.id,
    });
  const written = new Set(Object.keys(write) as WorkItemFieldName[]);
  return writtenAsSent(after, spec.toItem(spec.schema.parse(sent), ctx), written);
}

/** Updates a story or a task (see above); the item as tinyPM holds it after the update. */
export function updateItem(
  session: DocumentCache,
  ref: ItemRef,
  patch: WorkItemPatch,
  signal?: AbortSignal,
): Promise<WorkItem> {
  return ref.kind === "story"
    ? replace(session, STORY, ref, patch, signal)
    : replace(session, TASK, ref, patch, signal);
}
