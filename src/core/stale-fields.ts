import { ConflictError } from "./errors.js";
import type { SystemName, UserRef, WorkItemFieldName, WorkItemFields } from "./model.js";
import { WORK_ITEM_FIELD_NAMES } from "./model.js";

/**
 * The check an adapter makes right before an update whose caller planned against `base`: the
 * item was read again, and a field being written that changed since `base` would overwrite a
 * person's edit. Pure.
 */

type Fields = Partial<WorkItemFields>;

/** Whether two values of one field are the same for the system (its own normalisation). */
export type SameField = (name: WorkItemFieldName, a: Fields, b: Fields) => boolean;

/**
 * The fields of `set` that differ between `base` and `fresh`. A field that already holds the value
 * being written is no conflict: a retry after a lost answer finds its own earlier write there.
 */
export function staleFields(
  set: Fields,
  base: Fields,
  fresh: Fields,
  same: SameField,
): WorkItemFieldName[] {
  return WORK_ITEM_FIELD_NAMES.filter(
    (name) => Object.hasOwn(set, name) && !same(name, base, fresh) && !same(name, set, fresh),
  );
}

/** The error of a stale update: nothing was written; a new run re-plans against the new content. */
export function staleError(o: {
  readonly system: SystemName;
  readonly what: string;
  readonly id: string;
  readonly operation: string;
  readonly fields: readonly string[];
}): ConflictError {
  return new ConflictError(
    `${o.what} changed since it was planned against (${o.fields.join(", ")}); nothing was written.`,
    { system: o.system, operation: o.operation, id: o.id },
    {
      hint: "Run the sync again: it re-plans against the current content.",
      details: { fields: [...o.fields] },
    },
  );
}

/** How a system tells names apart: GitHub logins and labels ignore case. */
export interface SameOptions {
  readonly foldCase?: boolean | undefined;
}

function key(text: string, o: SameOptions): string {
  return o.foldCase === true ? text.toLowerCase() : text;
}

function userKey(u: UserRef, o: SameOptions): string {
  return key(u.id ?? u.login ?? u.email ?? u.name ?? "", o);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/**
 * The plain comparison of one field: users by id (else login, email, name), labels and assignees
 * as sets, the iteration by name, an empty description as none; everything else exactly.
 */
export function sameFieldValue(
  name: WorkItemFieldName,
  a: Fields,
  b: Fields,
  o: SameOptions = {},
): boolean {
  switch (name) {
    case "assignees":
      return sameSet(
        (a.assignees ?? []).map((u) => userKey(u, o)),
        (b.assignees ?? []).map((u) => userKey(u, o)),
      );
    case "acceptingUser":
      return (
        (a.acceptingUser && userKey(a.acceptingUser, o)) ===
        (b.acceptingUser && userKey(b.acceptingUser, o))
      );
    case "labels":
      return sameSet(
        (a.labels ?? []).map((l) => key(l, o)),
        (b.labels ?? []).map((l) => key(l, o)),
      );
    case "iteration":
      return a.iteration?.name === b.iteration?.name;
    case "description":
      return (a.description ?? "") === (b.description ?? "");
    case "title":
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
