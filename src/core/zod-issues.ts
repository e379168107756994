/**
 * The one formatter of zod issues, for the config and the mapping files alike: each issue becomes
 * a `ValidationIssue` whose message says what was found and what is allowed (style.md R11), e.g.
 * `unknown key "titel"; did you mean "title"?` or `found "gitlab"; valid choices: github, jira`.
 */
import { z } from "zod";
import type { ValidationIssue } from "./errors.js";
import { closest } from "./suggest.js";

type Path = readonly PropertyKey[];

/** The keys allowed at a path (for did-you-mean), or undefined when unknown. */
export type KnownKeys = (path: readonly (string | number)[]) => readonly string[] | undefined;

export interface ZodIssueSource {
  /** The file the input came from: every issue names it. */
  readonly file: string;
  /** The schema that validated the input: where it is given, the valid keys come from it. */
  readonly root?: z.ZodType | undefined;
  /** The parsed input, for the value found at an issue's path (unless the issue carries it). */
  readonly input?: unknown;
  /** The keys allowed at a path, when the schema alone cannot tell (defaults, unions). */
  readonly known?: KnownKeys | undefined;
}

/** All issues of a failed parse, with what was found and the valid keys or choices. */
export function zodIssues(
  issues: readonly z.core.$ZodIssue[],
  source: ZodIssueSource,
): ValidationIssue[] {
  return issues.flatMap((issue) => convertIssue(issue, source));
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

/** One zod issue → one or more validation issues (an unknown-keys issue becomes one per key). */
function convertIssue(issue: z.core.$ZodIssue, source: ZodIssueSource): ValidationIssue[] {
  const path = toPath(issue.path);
  const at = { file: source.file, path };
  if (issue.code === "unrecognized_keys") {
    const allowed = source.known?.(path) ?? keysAt(source.root, issue.path);
    return issue.keys.map((key) => ({
      file: source.file,
      path: [...path, key],
      message: `unknown key ${JSON.stringify(key)}; ${keyAdvice(key, allowed)}`,
    }));
  }
  const value = "input" in issue ? issue.input : valueAt(source.input, issue.path);
  const found = describeValue(value);
  if (issue.code === "invalid_value") {
    return [
      { ...at, message: `found ${found}; valid choices: ${issue.values.map(String).join(", ")}` },
    ];
  }
  if (issue.code === "invalid_union" && "discriminator" in issue && issue.discriminator) {
    // The issue sits at the discriminating key and carries the whole object as its input.
    const object = "input" in issue ? issue.input : valueAt(source.input, issue.path.slice(0, -1));
    const tag = isRecord(object) ? object[issue.discriminator] : undefined;
    const options = "options" in issue && Array.isArray(issue.options) ? issue.options : [];
    const what = tag === undefined ? "missing" : `found ${describeValue(tag)}`;
    if (options.length > 0)
      return [{ ...at, message: `${what}; valid choices: ${options.map(String).join(", ")}` }];
  }
  if (issue.code === "invalid_type") {
    const schema = schemaAt(source.root, issue.path);
    const expected =
      schema instanceof z.ZodEnum
        ? `one of ${schema.options.map(String).join(", ")}`
        : schema instanceof z.ZodLiteral
          ? [...schema.values].map(String).join(", ")
          : issue.expected;
    const what = value === undefined ? "missing" : `found ${found}`;
    return [{ ...at, message: `${what}; expected ${expected}` }];
  }
  const message = lowerFirst(issue.message);
  // A rule's own message; a scalar found is named after it (a list or mapping says nothing).
  const scalar = value !== undefined && (typeof value !== "object" || value === null);
  return [{ ...at, message: scalar ? `${message} (found ${found})` : message }];
}

function keyAdvice(key: string, allowed: readonly string[]): string {
  const guess = closest(key, allowed);
  if (guess !== undefined) return `did you mean ${JSON.stringify(guess)}?`;
  if (allowed.length > 0) return `valid keys: ${allowed.join(", ")}`;
  return "remove it or check its spelling";
}

/** The schema that validates the value at `path` inside `root`, when it can be found. */
function schemaAt(root: z.ZodType | undefined, path: Path): z.ZodType | undefined {
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

function keysAt(root: z.ZodType | undefined, path: Path): readonly string[] {
  const schema = schemaAt(root, path);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function valueAt(root: unknown, path: Path): unknown {
  let v = root;
  for (const segment of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[segment];
  }
  return v;
}

function toPath(path: Path): (string | number)[] {
  return path.map((p) => (typeof p === "number" ? p : String(p)));
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}
