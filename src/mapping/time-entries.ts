/**
 * Time entries. GitHub has none: they travel in metadata, with a readable table appended to the
 * description. Jira has worklogs: user, date, hours and comment are native; the rest (remaining
 * hours) travels in metadata, used only while the worklogs still match it.
 */
import type { JsonValue, TimeEntry, TimeEntryDraft, UserRef, WorkItem } from "../core/model.js";
import { escapeMentions } from "./mentions.js";
import type { UserLookup } from "./user-lookup.js";
import { cleanUser, isRecord, isUserRef, toJsonValue } from "./values.js";

export interface TimeEntryCodec {
  /** Metadata to store for the item's entries (`undefined`: nothing to store). */
  metadataFor(item: WorkItem): JsonValue | undefined;
  /** The target's native entries (Jira worklogs; none for GitHub). */
  toTarget(item: WorkItem): TimeEntryDraft[];
  /** The tinyPM entries of a target item. */
  toTinypm(item: WorkItem): TimeEntryDraft[];
  /** The readable summary appended to the description, or `undefined`. */
  summary(entries: readonly TimeEntry[]): string | undefined;
}

const START = "<!-- tinypm-sync:time -->";
const END = "<!-- /tinypm-sync:time -->";

/** Appends a summary block to a description. */
export function appendSummary(
  description: string | undefined,
  block: string | undefined,
): string | undefined {
  if (block === undefined) return description;
  return description === undefined ? block : `${description}\n\n${block}`;
}

/** Removes a trailing summary block (the inverse of {@link appendSummary}). */
export function stripSummary(body: string | undefined): string | undefined {
  if (!body?.endsWith(END)) return body;
  const at = body.lastIndexOf(START);
  if (at < 0) return body;
  const before = body.slice(0, at);
  if (before === "") return undefined;
  return before.endsWith("\n\n") ? before.slice(0, -2) : before;
}

function cell(text: string): string {
  return escapeMentions(text.replace(/\s+/g, " ").replace(/\|/g, "\\|"));
}

function summaryTable(entries: readonly TimeEntry[]): string | undefined {
  if (entries.length === 0) return undefined;
  const total = entries.reduce((sum, e) => sum + e.hours, 0);
  const rows = entries.map((e) => {
    const who = cell(e.user.login ?? e.user.name ?? e.user.id ?? "");
    const left = e.remainingHours === undefined ? "" : String(e.remainingHours);
    return `| ${e.date} | ${who} | ${e.hours} | ${left} | ${cell(e.comment ?? "")} |`;
  });
  return [
    START,
    `**Time booked in tinyPM:** ${Math.round(total * 100) / 100} h`,
    "",
    "| Date | Person | Hours | Left | Comment |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
    END,
  ].join("\n");
}

/** Who booked an entry, as metadata keeps it: login and tinyPM user id, never email or name. */
function storedUser(user: UserRef): UserRef {
  const out: { id?: string; login?: string; name?: string } = {};
  if (user.id !== undefined) out.id = user.id;
  if (user.login !== undefined) out.login = user.login;
  // Known by display name only: the name is all there is, and it is shown in the table anyway.
  if (out.id === undefined && out.login === undefined && user.name !== undefined)
    out.name = user.name;
  return out;
}

function stored(entry: TimeEntry, users: UserLookup): JsonValue {
  const out: Record<string, JsonValue> = {
    user: toJsonValue(storedUser(users.complete(entry.user))) ?? null,
    date: entry.date,
    hours: entry.hours,
  };
  if (entry.remainingHours !== undefined) out.remainingHours = entry.remainingHours;
  if (entry.comment !== undefined) out.comment = entry.comment;
  return out;
}

function readStored(value: unknown, users: UserLookup): TimeEntryDraft[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: TimeEntryDraft[] = [];
  for (const v of value as unknown[]) {
    if (
      !isRecord(v) ||
      !isUserRef(v.user) ||
      typeof v.date !== "string" ||
      typeof v.hours !== "number"
    )
      return undefined;
    const user =
      v.user.login === undefined && v.user.id === undefined
        ? cleanUser(v.user)
        : users.complete(v.user);
    out.push({
      user,
      date: v.date,
      hours: v.hours,
      ...(typeof v.remainingHours === "number" ? { remainingHours: v.remainingHours } : {}),
      ...(typeof v.comment === "string" ? { comment: v.comment } : {}),
    });
  }
  return out;
}

/** Whether two worklog lists agree: user by id, date, hours, comment. */
function sameWorklogs(a: readonly TimeEntryDraft[], b: readonly TimeEntryDraft[]): boolean {
  const who = (e: TimeEntryDraft): string | undefined => e.user.id ?? e.user.login ?? e.user.name;
  return (
    a.length === b.length &&
    a.every((x, i) => {
      const y = b[i];
      return (
        y !== undefined &&
        who(x) === who(y) &&
        x.date === y.date &&
        x.hours === y.hours &&
        x.comment === y.comment
      );
    })
  );
}

/** Builds the time-entry codec of a mapping. */
export function createTimeEntryCodec(options: {
  readonly to: "metadata" | "worklogs";
  readonly summary: boolean;
  readonly users: UserLookup;
}): TimeEntryCodec {
  const { users } = options;
  const worklogs = (entries: readonly TimeEntry[]): TimeEntryDraft[] =>
    entries.map((e) => ({
      user: users.toTarget(e.user, true) ?? {},
      date: e.date,
      hours: e.hours,
      ...(e.comment === undefined ? {} : { comment: e.comment }),
    }));
  const fromWorklog = (e: TimeEntry): TimeEntryDraft => ({
    user: users.toTinypm(e.user, true) ?? cleanUser(e.user),
    date: e.date,
    hours: e.hours,
    ...(e.comment === undefined ? {} : { comment: e.comment }),
  });
  const fromWorklogs = (entries: readonly TimeEntry[]): TimeEntryDraft[] =>
    entries.map(fromWorklog);
  const storedList = (item: WorkItem): JsonValue => item.timeEntries.map((e) => stored(e, users));
  if (options.to === "metadata") {
    return {
      metadataFor: (item) => (item.timeEntries.length === 0 ? undefined : storedList(item)),
      toTarget: () => [],
      toTinypm: (item) => readStored(item.metadata.timeEntries, users) ?? [],
      summary: (entries) => (options.summary ? summaryTable(entries) : undefined),
    };
  }
  return {
    // Stored whole: used only while the worklogs still match it (see toTinypm).
    metadataFor: (item) => (item.timeEntries.length === 0 ? undefined : storedList(item)),
    toTarget: (item) => worklogs(item.timeEntries),
    toTinypm(item) {
      const original = readStored(item.metadata.timeEntries, users);
      if (original === undefined) return fromWorklogs(item.timeEntries);
      if (sameWorklogs(worklogs(original), item.timeEntries)) return original;
      // Worklogs are authored by the API user: take each one's original (user, remaining hours)
      // from the stored list, matched by date and hours; the others are read as they are.
      const unused = [...original];
      return item.timeEntries.map((e) => {
        const at = unused.findIndex((o) => o.date === e.date && o.hours === e.hours);
        const found = at < 0 ? undefined : unused.splice(at, 1)[0];
        return found ?? fromWorklog(e);
      });
    },
    summary: (entries) => (options.summary ? summaryTable(entries) : undefined),
  };
}
