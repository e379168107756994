/**
 * Turns zod issues into `ValidationIssue`s whose message names what was found and the valid
 * choices (style.md R11), e.g. `found "priorty"; valid keys: title, description, …`.
 */
import { z } from "zod";
import type { ValidationIssue } from "../core/errors.js";

type Path = readonly PropertyKey[];

/** The schema that validates the value at `path` inside `root`, when it can be found. */
function schemaAt(root: z.ZodType, path: Path): z.ZodType | undefined {
  let current: z.ZodType | undefined = root;
  for (const segment of path) {
    current = unwrap(current);
    if (current instanceof z.ZodObject) {
      const shape = current.shape as Record<string, z.ZodType>;
      current = shape[String(segment)];
    } else if (current instanceof z.ZodRecord) {
      current = current.valueType as z.ZodType;
    } else if (current instanceof z.ZodArray) {
      current = current.element as z.ZodType;
    } else {
      return undefined;
    }
    if (current === undefined) return undefined;
  }
  return unwrap(current);
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
  return s;
}

function valueAt(root: unknown, path: Path): unknown {
  let v = root;
  for (const segment of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[segment];
  }
  return v;
}

/** A short, safe rendering of a found value. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (value === null) return "null";
  if (typeof value === "object") return "a mapping";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

function validKeys(root: z.ZodType, path: Path): string {
  const schema = schemaAt(root, path);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape).join(", ") : "(none)";
}

function toPath(path: Path): (string | number)[] {
  return path.map((p) => (typeof p === "number" ? p : String(p)));
}

/** One zod issue → one or more validation issues (an unknown-keys issue becomes one per key). */
function convertIssue(
  issue: z.core.$ZodIssue,
  ctx: { root: z.ZodType; input: unknown; file: string },
): ValidationIssue[] {
  const path = toPath(issue.path);
  const found = describeValue(valueAt(ctx.input, issue.path));
  const at = { file: ctx.file, path };
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({
      file: ctx.file,
      path: [...path, key],
      message: `unknown key ${JSON.stringify(key)}; valid keys: ${validKeys(ctx.root, issue.path)}`,
    }));
  }
  if (issue.code === "invalid_value") {
    return [
      { ...at, message: `found ${found}; valid choices: ${issue.values.map(String).join(", ")}` },
    ];
  }
  if (issue.code === "invalid_type") {
    const schema = schemaAt(ctx.root, issue.path);
    const expected =
      schema instanceof z.ZodEnum
        ? `one of ${schema.options.map(String).join(", ")}`
        : schema instanceof z.ZodLiteral
          ? [...schema.values].map(String).join(", ")
          : issue.expected;
    const what = found === "nothing" ? "missing" : `found ${found}`;
    return [{ ...at, message: `${what}; expected ${expected}` }];
  }
  return [{ ...at, message: `found ${found}; ${issue.message}` }];
}

/** All issues of a failed parse, with found values and valid choices. */
export function zodIssuesToValidation(
  error: z.ZodError,
  ctx: { root: z.ZodType; input: unknown; file: string },
): ValidationIssue[] {
  return error.issues.flatMap((issue) => convertIssue(issue, ctx));
}
