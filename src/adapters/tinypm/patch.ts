import { UsageError } from "../../core/errors.js";
import type { IterationRef, UserRef, WorkItemFieldName, WorkItemFields } from "../../core/model.js";
import { WORK_ITEM_FIELD_NAMES } from "../../core/model.js";
import {
  LEGACY_TASK_STATUSES,
  PRIORITIES,
  formatDecimal,
  isoToLongDate,
  type MapContext,
} from "./map.js";
import type { XmlNode, XmlValue } from "./wire.js";

/**
 * Pure write-side translation: applies only the intended canonical field changes onto a raw
 * tinyPM document, keeping every other element (unknown ones included) as read.
 */

type Fields = Partial<WorkItemFields>;

function userLabel(ref: UserRef): string {
  return ref.login ?? ref.name ?? ref.email ?? ref.id ?? "(empty user)";
}

/** The tinyPM user id of a reference: by id, then login, then display name, then email. */
export function resolveUserId(ref: UserRef, users: readonly UserRef[]): string {
  const byId =
    ref.id !== undefined && /^\d+$/.test(ref.id) ? users.find((u) => u.id === ref.id) : undefined;
  const found =
    byId ??
    (ref.login !== undefined ? users.find((u) => u.login === ref.login) : undefined) ??
    (ref.name !== undefined ? uniqueBy(users, (u) => u.name === ref.name) : undefined) ??
    (ref.email !== undefined ? users.find((u) => u.email === ref.email) : undefined);
  if (found?.id === undefined) {
    throw new UsageError(`tinyPM has no user matching ${userLabel(ref)}.`, {
      hint: "Map the user to an existing tinyPM user (users file), or create the user in tinyPM.",
      details: { user: ref },
    });
  }
  return found.id;
}

function uniqueBy<T>(list: readonly T[], pred: (t: T) => boolean): T | undefined {
  const hits = list.filter(pred);
  return hits.length === 1 ? hits[0] : undefined;
}

/** The id of an iteration reference (by id when known, else by name). */
export function resolveIterationId(ref: IterationRef, ctx: MapContext): string {
  const found =
    (ref.id !== undefined ? ctx.iterations.find((i) => i.id === ref.id) : undefined) ??
    ctx.iterations.find((i) => i.name === ref.name);
  if (!found) {
    throw new UsageError(
      `tinyPM project has no iteration named "${ref.name}" (tinyPM 2.x cannot create iterations through its API).`,
      { hint: "Create the iteration in the tinyPM web interface, then run again." },
    );
  }
  return found.id;
}

/** The wire value of a task status name: `{id}` of the project's status (2.6) or the enum (2.5). */
function taskStatusValue(name: string, ctx: MapContext): XmlValue {
  if (ctx.version === "2.5") {
    if ((LEGACY_TASK_STATUSES as readonly string[]).includes(name)) return name;
    throw unknownStatus(name, LEGACY_TASK_STATUSES);
  }
  const found =
    ctx.statuses.find((s) => s.id === name) ?? ctx.statuses.find((s) => s.name === name);
  if (!found)
    throw unknownStatus(
      name,
      ctx.statuses.map((s) => s.name),
    );
  return { id: found.id };
}

function unknownStatus(name: string, allowed: readonly string[]): UsageError {
  return new UsageError(
    `Task status "${name}" is not among the tinyPM project's statuses (${allowed.join(", ")}).`,
    { hint: "Map the status to one of these names in the mapping file." },
  );
}

function priorityValue(name: string): XmlValue {
  const index = (PRIORITIES as readonly string[]).indexOf(name);
  if (index === -1) {
    throw new UsageError(
      `Priority "${name}" is not a tinyPM priority (${PRIORITIES.join(", ")}).`,
      {
        hint: "Map the priority to one of these names in the mapping file.",
      },
    );
  }
  const n = String(index + 1);
  return { id: n, name, priority: n };
}

function put(doc: XmlNode, key: string, value: XmlValue | undefined): void {
  if (value === undefined) Reflect.deleteProperty(doc, key);
  else doc[key] = value;
}

function has(set: Fields, key: keyof WorkItemFields): boolean {
  return Object.prototype.hasOwnProperty.call(set, key);
}

const list = (item: string, values: readonly XmlValue[]): XmlValue =>
  values.length === 0 ? "" : { [item]: [...values] };

/** Applies `set` onto a raw `<userStory>` (a copy is returned). */
export function applyStoryFields(raw: XmlNode, set: Fields, ctx: MapContext): XmlNode {
  const doc: XmlNode = { ...raw };
  if (has(set, "title")) put(doc, "name", set.title);
  if (has(set, "description")) put(doc, "description", set.description);
  if (has(set, "status")) put(doc, "acceptanceStatus", set.status);
  if (has(set, "priority"))
    put(doc, "priority", set.priority === undefined ? undefined : priorityValue(set.priority));
  if (has(set, "estimate"))
    put(
      doc,
      "estimatedEffort",
      set.estimate === undefined ? undefined : formatDecimal(set.estimate),
    );
  if (has(set, "iteration")) {
    Reflect.deleteProperty(doc, "iterationId");
    put(
      doc,
      "iteration",
      set.iteration ? { id: resolveIterationId(set.iteration, ctx) } : undefined,
    );
  }
  if (has(set, "assignees")) {
    const owner = set.assignees?.[0];
    put(doc, "owner", owner ? { id: resolveUserId(owner, ctx.users) } : undefined);
  }
  if (has(set, "acceptingUser")) {
    put(
      doc,
      "acceptingUser",
      set.acceptingUser ? { id: resolveUserId(set.acceptingUser, ctx.users) } : undefined,
    );
  }
  if (has(set, "labels")) put(doc, "tags", list("tag", set.labels ?? []));
  if (has(set, "color")) put(doc, "color", set.color);
  if (has(set, "position"))
    put(doc, "position", set.position === undefined ? undefined : String(set.position));
  return normalizeStoryForPut(doc);
}

/** Nested references need only their id on a write. */
function normalizeStoryForPut(doc: XmlNode): XmlNode {
  for (const key of ["owner", "acceptingUser", "iteration"]) {
    const value = doc[key];
    if (
      value &&
      typeof value === "object" &&
      !Array.isArray(value) &&
      typeof value.id === "string"
    ) {
      doc[key] = { id: value.id };
    }
  }
  return doc;
}

/** Applies `set` onto a raw `<task>` (a copy is returned). */
export function applyTaskFields(raw: XmlNode, set: Fields, ctx: MapContext): XmlNode {
  const doc: XmlNode = { ...raw };
  if (has(set, "title")) put(doc, "name", set.title);
  if (has(set, "description")) put(doc, "description", set.description);
  if (has(set, "status") && set.status !== undefined) doc.status = taskStatusValue(set.status, ctx);
  if (has(set, "estimate"))
    put(
      doc,
      "estimatedEffort",
      set.estimate === undefined ? undefined : formatDecimal(set.estimate),
    );
  if (has(set, "assignees")) {
    put(
      doc,
      "assignedUsers",
      list(
        "user",
        (set.assignees ?? []).map((u) => ({ id: resolveUserId(u, ctx.users) })),
      ),
    );
  }
  if (has(set, "startedAt"))
    put(doc, "startedAt", set.startedAt === undefined ? undefined : isoToLongDate(set.startedAt));
  if (has(set, "completedAt"))
    put(
      doc,
      "completedAt",
      set.completedAt === undefined ? undefined : isoToLongDate(set.completedAt),
    );
  return normalizeTaskForPut(doc, ctx);
}

function normalizeTaskForPut(doc: XmlNode, ctx: MapContext): XmlNode {
  const status = doc.status;
  if (ctx.version === "2.6" && status && typeof status === "object" && !Array.isArray(status)) {
    if (typeof status.id === "string") doc.status = { id: status.id.trim() };
  }
  const users = doc.assignedUsers;
  if (users && typeof users === "object" && !Array.isArray(users) && Array.isArray(users.user)) {
    doc.assignedUsers = {
      user: users.user.map((u) =>
        u && typeof u === "object" && !Array.isArray(u) && typeof u.id === "string"
          ? { id: u.id }
          : u,
      ),
    };
  }
  return doc;
}

function sameUser(a: UserRef | undefined, b: UserRef | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.id !== undefined && b.id !== undefined) return a.id === b.id;
  if (a.login !== undefined && b.login !== undefined) return a.login === b.login;
  return a.name === b.name;
}

/** Whether two values of one field are the same as tinyPM holds them (users by id, …). */
export function sameValue(name: WorkItemFieldName, a: Fields, b: Fields): boolean {
  switch (name) {
    case "assignees": {
      const x = a.assignees ?? [];
      const y = b.assignees ?? [];
      return x.length === y.length && x.every((u, i) => sameUser(u, y[i]));
    }
    case "acceptingUser":
      return sameUser(a.acceptingUser, b.acceptingUser);
    case "iteration":
      return (
        a.iteration?.name === b.iteration?.name &&
        (a.iteration?.id === undefined ||
          b.iteration?.id === undefined ||
          a.iteration.id === b.iteration.id)
      );
    case "labels":
      return JSON.stringify(a.labels ?? []) === JSON.stringify(b.labels ?? []);
    case "title":
    case "description":
    case "status":
    case "priority":
    case "estimate":
    case "color":
    case "position":
    case "startedAt":
    case "completedAt":
      return a[name] === b[name];
  }
}

/** The canonical fields on which `fresh` differs from `base` (conflict detection). */
export function changedFields(base: Fields, fresh: Fields): WorkItemFieldName[] {
  return WORK_ITEM_FIELD_NAMES.filter((name) => !sameValue(name, base, fresh));
}
