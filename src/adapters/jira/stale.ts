import { isDeepStrictEqual } from "node:util";
import type {
  WorkItem,
  WorkItemFieldName,
  WorkItemFields,
  WorkItemPatch,
} from "../../core/model.js";
import { sameFieldValue, staleError, staleFields } from "../../core/stale-fields.js";
import type { AdfDoc } from "./adf.js";
import { adfToMarkdown } from "./adf-render.js";

type Fields = Partial<WorkItemFields>;
type Compared = Fields & Pick<Partial<WorkItem>, "richDescription">;

/** The fields of `set` an update really writes on Jira (a priority cannot be cleared). */
function writtenFields(set: Fields, storyPointsField: string | undefined): Fields {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(set)) {
    const clears = name === "description" || name === "iteration" || name === "estimate";
    if (name === "estimate" && storyPointsField === undefined) continue;
    if (value !== undefined || clears) out[name] = value;
  }
  return out;
}

const firstAccount = (f: Fields): string | undefined => f.assignees?.find((u) => u.id)?.id;

/**
 * The fields an update writes, as Jira will read them back when nobody else touches them: the
 * description as the document sent renders (`doc`), the others as set (pure).
 */
export function writtenAsRead(o: {
  readonly set: Fields;
  readonly doc: AdfDoc | undefined;
  readonly storyPointsField: string | undefined;
}): Fields {
  const set = writtenFields(o.set, o.storyPointsField);
  return o.doc === undefined ? set : { ...set, description: adfToMarkdown(o.doc) || undefined };
}

/**
 * Field equality as Jira sees it: one assignee (by accountId), statuses ignoring case, the
 * description by its document when both sides have one, else by its text.
 */
export function sameOnJira(name: WorkItemFieldName, a: Compared, b: Compared): boolean {
  switch (name) {
    case "assignees":
      return firstAccount(a) === firstAccount(b);
    case "status":
      return a.status?.toLowerCase() === b.status?.toLowerCase();
    case "description":
      if ("richDescription" in a && "richDescription" in b)
        return isDeepStrictEqual(a.richDescription, b.richDescription);
      return sameFieldValue(name, a, b);
    case "title":
    case "priority":
    case "estimate":
    case "iteration":
    case "acceptingUser":
    case "labels":
    case "color":
    case "position":
    case "startedAt":
    case "completedAt":
      return sameFieldValue(name, a, b);
  }
}

/**
 * Checks an update planned against `patch.base` on the issue read right before it (`current`):
 * a field being written that a person changed since the run read it is a `ConflictError`, thrown
 * before any write. A field that already holds what is being written (`doc` for the description,
 * as Jira renders it back) is a retry after a lost answer, no conflict.
 */
export function checkNotStale(o: {
  readonly key: string;
  readonly patch: WorkItemPatch;
  readonly current: WorkItem;
  readonly doc: AdfDoc | undefined;
  readonly storyPointsField: string | undefined;
}): void {
  const base = o.patch.base;
  if (base === undefined) return;
  const asWritten = writtenAsRead({
    set: o.patch.set,
    doc: o.doc,
    storyPointsField: o.storyPointsField,
  });
  const fields = staleFields(asWritten, base, o.current, sameOnJira);
  if (fields.length > 0)
    throw staleError({
      system: "jira",
      what: `Jira issue ${o.key}`,
      id: o.key,
      operation: "PUT /rest/api/3/issue/{key}",
      fields,
    });
}
