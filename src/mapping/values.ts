/** Small pure helpers on values: JSON conversion, stable comparison, type guards. */
import type { IterationRef, JsonValue, UserRef } from "../core/model.js";

/** A JSON copy of a value with `undefined` properties dropped (`undefined` itself stays). */
export function toJsonValue(value: unknown): JsonValue | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map((v: unknown) => toJsonValue(v) ?? null);
  if (typeof value === "object") {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value)) {
      const j = toJsonValue(v);
      if (j !== undefined) out[k] = j;
    }
    return out;
  }
  return null;
}

/** A stable string key of a value: object keys sorted, `undefined` properties ignored. */
export function stableKey(value: unknown): string {
  if (value === undefined) return "~";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v: unknown) => stableKey(v)).join(",")}]`;
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableKey(v)}`).join(",")}}`;
}

/** Deep equality on plain data (key order and `undefined` properties ignored). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => sameValue(v, b[i]));
  }
  if (Array.isArray(b)) return false;
  return sameRecord(a as Record<string, unknown>, b as Record<string, unknown>);
}

function sameRecord(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  let count = 0;
  for (const k in a) {
    if (a[k] === undefined) continue;
    count += 1;
    if (!sameValue(a[k], b[k])) return false;
  }
  for (const k in b) if (b[k] !== undefined) count -= 1;
  return count === 0;
}

/** Two label lists hold the same labels (order and repeats ignored). */
export function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === b.length && a.every((v, i) => v === b[i])) return true;
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((v) => sb.has(v));
}

export function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const optionalString = (v: unknown): boolean => v === undefined || typeof v === "string";

export function isUserRef(value: unknown): value is UserRef {
  return (
    isRecord(value) &&
    optionalString(value.id) &&
    optionalString(value.login) &&
    optionalString(value.name) &&
    optionalString(value.email)
  );
}

export function isUserRefList(value: unknown): value is readonly UserRef[] {
  return Array.isArray(value) && value.every(isUserRef);
}

export function isStringList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}

export function isIterationRef(value: unknown): value is IterationRef {
  return isRecord(value) && typeof value.name === "string" && optionalString(value.id);
}

/** A user reference with only its defined properties, in a fixed order. */
export function cleanUser(ref: UserRef): UserRef {
  const out: { id?: string; login?: string; name?: string; email?: string } = {};
  if (ref.id !== undefined) out.id = ref.id;
  if (ref.login !== undefined) out.login = ref.login;
  if (ref.name !== undefined) out.name = ref.name;
  if (ref.email !== undefined) out.email = ref.email;
  return out;
}
