import type { WorkItem, WorkItemFieldName, WorkItemFields } from "../../core/model.js";
import { WORK_ITEM_FIELD_NAMES } from "../../core/model.js";
import type { AdfDoc } from "./adf.js";
import { richDescriptionOf } from "./adf-blocks.js";
import type { JiraContext } from "./context.js";
import { sameOnJira } from "./stale.js";
import { changelog, leftSince, type ChangelogEntry } from "./status-history.js";

type Fields = Partial<WorkItemFields>;
type ChangeItem = Pick<ChangelogEntry["items"][number], "field" | "fieldId">;

/**
 * An update's read-back comes after its writes, so a field it wrote may read back as a person
 * saved it in between rather than as Jira normalised what was sent: told apart by the issue's
 * changelog, read only when a written field reads back different from what was sent (`sent`,
 * as Jira reads it back: stale.ts `writtenAsRead`). Such a field the changelog shows changed
 * again after the update's own change is answered as sent; the engine takes the written fields
 * from the answer (sync/apply/answered.ts), so its base keeps what was written and the next run
 * sees the person's value as a change on Jira, which it carries to tinyPM.
 */
export async function attributeReadBack(
  ctx: JiraContext,
  o: {
    readonly key: string;
    /** The issue read right before the writes. */
    readonly current: WorkItem;
    readonly read: WorkItem;
    readonly sent: Fields;
    /** The description document sent, when the description was written. */
    readonly doc: AdfDoc | undefined;
  },
): Promise<WorkItem> {
  const drifted = driftedFields(o.sent, o.read);
  const since = o.current.updatedAt;
  if (drifted.length === 0 || since === undefined) return o.read;
  const site = await ctx.site();
  const entries = await changelog(ctx, o.key);
  const again = drifted.filter((name) =>
    changedAgain({ entries, name, since, sent: o.sent, current: o.current, site }),
  );
  if (again.length === 0) return o.read;
  const rich = o.doc === undefined ? undefined : richDescriptionOf(o.doc, ctx.client.blockLost);
  return answeredAsSent(o.read, o.sent, again, rich);
}

/** The written fields whose read-back differs from what was sent, as Jira compares them (pure). */
export function driftedFields(sent: Fields, read: WorkItem): WorkItemFieldName[] {
  return WORK_ITEM_FIELD_NAMES.filter(
    (name) => Object.hasOwn(sent, name) && !sameOnJira(name, sent, read),
  );
}

/** The custom fields' ids, for changelog items (Data Center's items name them, without an id). */
interface FieldIds {
  readonly storyPointsField: string | undefined;
  readonly sprintField: string;
  /** Their names on the site (site.ts), when its field list named them. */
  readonly storyPointsName?: string | undefined;
  readonly sprintName?: string | undefined;
}

/** A Data Center item's field name is the site's name of the field, else one of Jira's own. */
function namedAs(item: ChangeItem, name: string | undefined, fallback: RegExp): boolean {
  const field = item.field ?? "";
  return name === undefined ? fallback.test(field) : field.toLowerCase() === name.toLowerCase();
}

/** Whether a changelog item is a change of the model field `name` on Jira (pure). */
export function isChangeOf(name: WorkItemFieldName, item: ChangeItem, ids: FieldIds): boolean {
  const id = item.fieldId ?? item.field;
  switch (name) {
    case "title":
      return id === "summary";
    case "description":
    case "labels":
    case "priority":
    case "status":
      return id === name;
    case "assignees":
      return id === "assignee";
    case "estimate":
      return item.fieldId === undefined
        ? namedAs(item, ids.storyPointsName, /^story points?( estimate)?$/i)
        : item.fieldId === ids.storyPointsField;
    case "iteration":
      return item.fieldId === undefined
        ? namedAs(item, ids.sprintName, /^Sprint$/)
        : id === ids.sprintField;
    case "acceptingUser":
    case "color":
    case "position":
    case "startedAt":
    case "completedAt":
      return false;
  }
}

/**
 * Whether field `name` changed after the update's own change (pure): changes of it later than
 * `since` (the change time before the writes) beyond the one the update made, which it
 * made only when the issue did not already hold what was sent (a retry finds its own earlier
 * write there). A status is reached by a walk of transitions: it changed again when the issue
 * left the status sent after `since`.
 */
export function changedAgain(o: {
  readonly entries: readonly ChangelogEntry[];
  readonly name: WorkItemFieldName;
  readonly since: string;
  readonly sent: Fields;
  readonly current: WorkItem;
  readonly site: FieldIds;
}): boolean {
  if (o.name === "status")
    return o.sent.status !== undefined && leftSince(o.entries, o.sent.status, o.since);
  const after = Date.parse(o.since);
  const changes = o.entries.filter(
    (e) =>
      e.created !== undefined &&
      Date.parse(e.created) > after &&
      e.items.some((i) => isChangeOf(o.name, i, o.site)),
  ).length;
  const own = sameOnJira(o.name, o.sent, o.current) ? 0 : 1;
  return changes > own;
}

/** The read-back with `fields` as sent (and the description's blocks as the document sent). */
export function answeredAsSent(
  read: WorkItem,
  sent: Fields,
  fields: readonly WorkItemFieldName[],
  rich: WorkItem["richDescription"],
): WorkItem {
  const item: Record<string, unknown> = { ...read };
  for (const name of fields) {
    item[name] = sent[name];
    if (name === "description") item.richDescription = rich;
  }
  return item as unknown as WorkItem;
}
