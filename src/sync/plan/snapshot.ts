import type {
  Comment,
  ItemKind,
  JsonValue,
  TimeEntry,
  UserRef,
  WorkItem,
  WorkItemFieldName,
  WorkItemFields,
} from "../../core/model.js";
import type { CompiledMapping, MappedFields } from "../../mapping/compile.js";
import { hexHash } from "../../core/short-hash.js";

/**
 * What the engine compares: an item's synced fields in tinyPM terms, normalised so that equal
 * content compares equal whatever the order of sets, plus the keys of its comments and its time
 * entries. One snapshot per side is kept as the link's base after every sync.
 */
export interface Snapshot {
  readonly fields: Readonly<Record<string, JsonValue>>;
  /** Comment keys (date to the minute + body), sorted. */
  readonly comments: readonly string[];
  /** Time entry key (user + date) → hours. */
  readonly timeEntries: Readonly<Record<string, number>>;
  /** The item was deleted on this side (the link is kept so that it is not created again). */
  readonly deleted?: boolean | undefined;
  /**
   * The item's own change time when this snapshot was taken, by its system's clock (target items
   * only: tinyPM keeps none). A later question to that system's history ("what changed since the
   * base?") is asked from here, never from this host's clock, which may be off the system's.
   * Not content: neither compared nor hashed.
   */
  readonly at?: string | undefined;
}

export const EMPTY_SNAPSHOT: Snapshot = { fields: {}, comments: [], timeEntries: {} };

/** A stable key for a user across systems: login, else id, else display name. */
export function userKey(user: UserRef | undefined): string | undefined {
  if (user === undefined) return undefined;
  return user.login ?? user.id ?? user.name;
}

/** The normalised value of one field (JSON, comparable with `sameJson`). */
export function normalizeField(field: WorkItemFieldName, value: unknown): JsonValue | undefined {
  if (value === undefined || value === null) return undefined;
  switch (field) {
    case "labels":
      return [...new Set(value as readonly string[])].sort();
    case "assignees":
      return [
        ...new Set((value as readonly UserRef[]).map(userKey).filter((k) => k !== undefined)),
      ].sort();
    case "acceptingUser":
      return userKey(value);
    case "iteration":
      return (value as { name: string }).name;
    case "description": {
      const text = (value as string).replace(/\r\n?/g, "\n");
      return text === "" ? undefined : text;
    }
    case "title":
    case "status":
    case "priority":
    case "color":
    case "startedAt":
    case "completedAt":
      return value as string;
    case "estimate":
    case "position":
      return value as number;
  }
}

/** A comment's identity across systems: its time to the minute (zone dropped) and its text. */
export function commentKey(comment: { readonly createdAt: string; readonly body: string }): string {
  const minute = comment.createdAt
    .replace("T", " ")
    .replace(/(Z|[+-]\d\d:?\d\d)$/, "")
    .slice(0, 16);
  const body = comment.body.replace(/\r\n?/g, "\n").trim();
  // Joined, not a template: a template gives a rope of its parts, the time's whole text behind it.
  return [minute, hexHash("sha1", body, 16)].join("|");
}

/** A time entry's identity: whose and which day (tinyPM keeps one entry per task, user and day). */
export function timeEntryKey(entry: Pick<TimeEntry, "user" | "date">): string {
  return `${userKey(entry.user) ?? "?"}|${entry.date}`;
}

/** The snapshot of an item in tinyPM terms, restricted to the fields the mapping syncs. */
export function snapshotOf(opts: {
  readonly fields: Partial<WorkItemFields>;
  readonly names: readonly WorkItemFieldName[];
  readonly comments: readonly Pick<Comment, "createdAt" | "body">[];
  readonly timeEntries: readonly Pick<TimeEntry, "user" | "date" | "hours">[];
}): Snapshot {
  const fields: Record<string, JsonValue> = {};
  for (const name of opts.names) {
    const v = normalizeField(name, opts.fields[name]);
    if (v !== undefined) fields[name] = v;
  }
  const timeEntries: Record<string, number> = {};
  for (const e of opts.timeEntries) timeEntries[timeEntryKey(e)] = e.hours;
  return { fields, comments: [...new Set(opts.comments.map(commentKey))].sort(), timeEntries };
}

/** The tinyPM-terms snapshot of a tinyPM item. */
export function tinypmSnapshot(mapping: MappedFields, item: WorkItem): Snapshot {
  return snapshotOf({
    fields: item,
    names: mapping.fieldNames(item.kind),
    comments: item.comments,
    timeEntries: item.timeEntries,
  });
}

/** The tinyPM-terms snapshot of a target item (through the mapping's inverse). */
export function targetSnapshot(mapping: CompiledMapping, item: WorkItem): Snapshot {
  const fields: Partial<WorkItemFields> = mapping.toTinypm(item);
  const snapshot = snapshotOf({
    fields,
    names: mapping.fieldNames(item.kind),
    comments: item.comments.map((c) => mapping.commentToTinypm(c)),
    timeEntries: mapping.timeEntriesToTinypm(item),
  });
  return item.updatedAt === undefined ? snapshot : { ...snapshot, at: item.updatedAt };
}

/** Whether a side's snapshot holds what the link's base for that side holds. */
export function sameAsBase(s: Snapshot, base: Snapshot): boolean {
  return (
    sameJson(s.fields, base.fields) &&
    sameJson([...s.comments], [...base.comments]) &&
    sameJson(s.timeEntries, base.timeEntries)
  );
}

/** Deep equality of JSON values (objects by key, arrays by position). */
export function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) return false;
    const la = a as readonly JsonValue[];
    const lb = b as readonly JsonValue[];
    return la.length === lb.length && la.every((x, i) => sameJson(x, lb[i]));
  }
  const ka = Object.keys(a);
  const ra = a as Record<string, JsonValue>;
  const rb = b as Record<string, JsonValue>;
  return ka.length === Object.keys(b).length && ka.every((k) => sameJson(ra[k], rb[k]));
}

/** A short content hash of a snapshot (stored beside the base, shown in reports). */
export function snapshotHash(s: Snapshot): string {
  const content = { ...s };
  delete content.at;
  return hexHash("sha256", stableStringify(content), 16);
}

function stableStringify(value: unknown): string {
  if (value === undefined) return "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableStringify(obj[k])}`)
    .join(",")}}`;
}

/** The snapshot as stored JSON. */
export function snapshotToJson(s: Snapshot): JsonValue {
  return {
    fields: s.fields,
    comments: s.comments,
    timeEntries: s.timeEntries,
    ...(s.deleted === true ? { deleted: true } : {}),
    ...(s.at === undefined ? {} : { at: s.at }),
  };
}

/** A stored snapshot back (tolerant of older or empty records). */
export function snapshotFromJson(value: JsonValue | undefined): Snapshot {
  if (value === null || value === undefined || typeof value !== "object" || Array.isArray(value))
    return EMPTY_SNAPSHOT;
  const v = value as Record<string, JsonValue>;
  const fields =
    typeof v.fields === "object" && v.fields !== null && !Array.isArray(v.fields) ? v.fields : {};
  const comments = Array.isArray(v.comments)
    ? v.comments.filter((c): c is string => typeof c === "string")
    : [];
  const te =
    typeof v.timeEntries === "object" && v.timeEntries !== null && !Array.isArray(v.timeEntries)
      ? v.timeEntries
      : {};
  const timeEntries: Record<string, number> = {};
  for (const [k, h] of Object.entries(te)) if (typeof h === "number") timeEntries[k] = h;
  return {
    fields: fields as Record<string, JsonValue>,
    comments,
    timeEntries,
    deleted: v.deleted === true,
    ...(typeof v.at === "string" ? { at: v.at } : {}),
  };
}

export type { ItemKind, WorkItem };
