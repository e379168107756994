import { invalidRequest, validationFailed } from "./errors.js";

/**
 * Request-body checks that answer the way GitHub does: wrongly typed properties get its
 * JSON-schema style 422 ("Invalid request.\n\nFor 'properties/title', … is not a string."),
 * semantic problems a "Validation Failed" 422 with field errors.
 */

export type Body = Readonly<Record<string, unknown>>;

/** The body as a JSON object, or GitHub's 400/422 answers. */
export function objectBody(body: unknown): Body {
  if (body === undefined) return {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalidRequest(`${JSON.stringify(body)} is not an object.`);
  }
  return body as Body;
}

function typeError(field: string, value: unknown, what: string): Error {
  return invalidRequest(`For 'properties/${field}', ${JSON.stringify(value)} is not ${what}.`);
}

export function required<T>(body: Body, field: string, read: (b: Body, f: string) => T): T {
  if (body[field] === undefined) {
    throw invalidRequest(`"${field}" wasn't supplied.`);
  }
  return read(body, field);
}

export function optString(body: Body, field: string): string | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (typeof v !== "string") throw typeError(field, v, "a string");
  return v;
}

export function optNullableString(body: Body, field: string): string | null | undefined {
  return body[field] === null ? null : optString(body, field);
}

/** `title` accepts a string or an integer. */
export function stringOrInteger(body: Body, field: string): string {
  const v = body[field];
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isInteger(v)) return String(v);
  throw typeError(field, v, "a string or integer");
}

export function optInteger(body: Body, field: string): number | null | undefined {
  const v = body[field];
  if (v === undefined || v === null) return v;
  if (typeof v === "number" && Number.isInteger(v)) return v;
  if (typeof v === "string" && /^\d+$/.test(v)) return Number(v);
  throw typeError(field, v, "an integer");
}

export function optBoolean(body: Body, field: string): boolean | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (typeof v !== "boolean") throw typeError(field, v, "a boolean");
  return v;
}

export function optEnum<T extends string>(
  body: Body,
  field: string,
  allowed: readonly T[],
  resource: string,
): T | null | undefined {
  const v = body[field];
  if (v === undefined || v === null) return v;
  if (typeof v !== "string" || !allowed.includes(v as T)) {
    throw validationFailed({ resource, code: "invalid", field, value: v });
  }
  return v as T;
}

/** An array of strings (labels also accept `{name}` objects). */
export function optStringList(body: Body, field: string): string[] | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (v === null) return [];
  if (!Array.isArray(v)) throw typeError(field, v, "an array");
  return v.map((item: unknown) => {
    if (typeof item === "string") return item;
    if (typeof item === "object" && item !== null && "name" in item) {
      const name = item.name;
      if (typeof name === "string") return name;
    }
    throw typeError(`${field}/items`, item, "a string");
  });
}
