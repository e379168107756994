/**
 * Value codecs: how one field's tinyPM value becomes a target value and back, per value type
 * (text/number through transforms and tables, users through the user lookup, iterations by name).
 */
import type { Iteration, IterationRef, UserRef, WorkItemFieldName } from "../core/model.js";
import { FIELD_TYPES } from "./rules.js";
import type { FieldRule } from "./schema.js";
import { composeTransforms, type TextContext } from "./transforms.js";
import type { UserLookup } from "./user-lookup.js";
import {
  cleanUser,
  isIterationRef,
  isStringList,
  isUserRef,
  isUserRefList,
  sameSet,
  sameValue,
} from "./values.js";

/** A pure two-way value translation plus a normaliser for comparing target values. */
export interface ValueCodec {
  encode(value: unknown): unknown;
  decode(value: unknown): unknown;
  /** Whether a value read back (from metadata) has this field's tinyPM type. */
  accepts(value: unknown): boolean;
  /** True when `decode(encode(x))` is always `x` (no check needed, nothing kept in metadata). */
  readonly exact: boolean;
  /** Whether two target values are the same (users by id, labels as a set, "" as absent). */
  same(a: unknown, b: unknown): boolean;
}

export interface ValueCodecContext {
  readonly users: UserLookup;
  readonly iterations: ReadonlyMap<string, Iteration>;
  /** For the description: the mentions option's steps. */
  readonly text?: TextContext | undefined;
}

const absent = (v: unknown): unknown => (v === "" || v === null ? undefined : v);
const sameScalar = (a: unknown, b: unknown): boolean => absent(a) === absent(b);

/** text/number through `transform`, `map`, `default`, `inverse`. */
export function scalarCodec(
  rule: FieldRule,
  type: "text" | "number",
  text?: TextContext,
): ValueCodec {
  const t = composeTransforms(rule.transform ?? [], text);
  const map = rule.map === undefined ? undefined : new Map(Object.entries(rule.map));
  const back = new Map<string, string>();
  for (const [k, v] of map ?? []) if (!back.has(v)) back.set(v, k);
  for (const [k, v] of Object.entries(rule.inverse ?? {})) if (!back.has(k)) back.set(k, v);
  return {
    encode(value) {
      if (value === undefined) return undefined;
      const x = t.forward(value);
      if (map === undefined || typeof x !== "string") return x;
      return map.get(x) ?? rule.default ?? x;
    },
    decode(value) {
      if (value === undefined || value === null) return undefined;
      const x =
        typeof value === "string" ? (back.get(value) ?? rule.inverseDefault ?? value) : value;
      return t.inverse(x);
    },
    accepts: (v) => v === undefined || typeof v === (type === "text" ? "string" : "number"),
    exact:
      t.exact &&
      map === undefined &&
      rule.inverse === undefined &&
      rule.inverseDefault === undefined,
    same: sameScalar,
  };
}

const userKey = (r: UserRef): string | undefined => r.id ?? r.login ?? r.name;
const sameUsers = (a: readonly UserRef[], b: readonly UserRef[]): boolean =>
  a.length === b.length && a.every((u, i) => userKey(u) === userKey(b[i] ?? {}));

/** A user list written natively (translated, at most `max`). */
function usersCodec(rule: FieldRule, ctx: ValueCodecContext): ValueCodec {
  const max = rule.max ?? Number.POSITIVE_INFINITY;
  return {
    encode: (value) =>
      isUserRefList(value)
        ? value
            .map((u) => ctx.users.toTarget(u))
            .filter((u) => u !== undefined)
            .slice(0, max)
        : [],
    decode: (value) =>
      isUserRefList(value)
        ? value.map((u) => ctx.users.toTinypm(u)).filter((u) => u !== undefined)
        : [],
    accepts: isUserRefList,
    exact: false,
    same: (a, b) => sameUsers(isUserRefList(a) ? a : [], isUserRefList(b) ? b : []),
  };
}

/** One user written natively. */
function userCodec(ctx: ValueCodecContext): ValueCodec {
  return {
    encode: (value) => (isUserRef(value) ? ctx.users.toTarget(value) : undefined),
    decode: (value) => (isUserRef(value) ? ctx.users.toTinypm(value) : undefined),
    accepts: (v) => v === undefined || isUserRef(v),
    exact: false,
    same: (a, b) => sameUsers(isUserRef(a) ? [a] : [], isUserRef(b) ? [b] : []),
  };
}

/** Users kept as tinyPM refs (metadata): completed from the tinyPM user list on the way back. */
function storedUsersCodec(ctx: ValueCodecContext, many: boolean): ValueCodec {
  const one = (v: unknown): UserRef | undefined =>
    isUserRef(v) ? cleanUser(ctx.users.complete(v)) : undefined;
  return {
    encode: (value) =>
      many && isUserRefList(value)
        ? value.map(cleanUser)
        : isUserRef(value)
          ? cleanUser(value)
          : undefined,
    decode: (value) =>
      many
        ? Array.isArray(value)
          ? value.map(one).filter((u) => u !== undefined)
          : []
        : one(value),
    accepts: many ? isUserRefList : (v) => v === undefined || isUserRef(v),
    exact: false,
    same: sameValue,
  };
}

function iterationCodec(ctx: ValueCodecContext, native: boolean): ValueCodec {
  return {
    encode: (value) =>
      isIterationRef(value) ? (native ? { name: value.name } : { ...value }) : undefined,
    decode(value) {
      if (!isIterationRef(value)) return undefined;
      const id = value.id ?? ctx.iterations.get(value.name)?.id;
      const ref: IterationRef = id === undefined ? { name: value.name } : { id, name: value.name };
      return ref;
    },
    accepts: (v) => v === undefined || isIterationRef(v),
    exact: false,
    same: (a, b) => (isIterationRef(a) ? a.name : a) === (isIterationRef(b) ? b.name : b),
  };
}

function labelsCodec(rule: FieldRule): ValueCodec {
  const t = composeTransforms(rule.transform ?? []);
  return {
    encode: (value) => (isStringList(value) ? value.map((l) => t.forward(l) as string) : []),
    decode: (value) => (isStringList(value) ? value.map((l) => t.inverse(l) as string) : []),
    accepts: isStringList,
    exact: t.exact,
    same: (a, b) => sameSet(isStringList(a) ? a : [], isStringList(b) ? b : []),
  };
}

/** The value codec of one field's rule. */
export function valueCodecFor(
  field: WorkItemFieldName,
  rule: FieldRule,
  ctx: ValueCodecContext,
): ValueCodec {
  const type = FIELD_TYPES[field];
  const native = rule.to !== "metadata";
  switch (type) {
    case "text":
    case "number":
      return scalarCodec(rule, type, field === "description" ? ctx.text : undefined);
    case "users":
      return native ? usersCodec(rule, ctx) : storedUsersCodec(ctx, true);
    case "user":
      return native ? userCodec(ctx) : storedUsersCodec(ctx, false);
    case "iteration":
      return iterationCodec(ctx, native);
    case "labels":
      return labelsCodec(rule);
  }
}
