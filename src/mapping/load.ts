/**
 * Reads and validates mapping files: YAML → zod schema → cross-field rules. Every problem of a
 * file is collected and thrown at once as one `MappingError` whose `issues` carry file and path.
 */
import { readFileSync } from "node:fs";
import { parseDocument } from "yaml";
import type { z } from "zod";
import { MappingError, type ValidationIssue } from "../core/errors.js";
import { checkMappingRules } from "./rules.js";
import { mappingSpecSchema, type MappingSpec } from "./schema.js";
import { zodIssues } from "../core/zod-issues.js";

/** Renders issues as `file > a > b: message` lines, for the error message. */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  return issues
    .map(
      (i) =>
        `${[i.file ?? "", ...i.path.map(String)].filter((s) => s !== "").join(" > ")}: ${i.message}`,
    )
    .join("\n");
}

/**
 * Parses YAML text and validates it with `schema`; throws `MappingError` with every issue.
 * Shared by mapping files and user-map files.
 */
export function parseYamlWith<T>(options: {
  readonly text: string;
  readonly file: string;
  readonly schema: z.ZodType<T>;
  readonly what: string;
  readonly rules?: (value: T, file: string) => ValidationIssue[];
}): T {
  const { text, file, schema, what } = options;
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const issues = doc.errors.map((e) => ({
      file,
      path: [] as string[],
      message: `YAML syntax: ${(e.message.split("\n")[0] ?? e.code).replace(/:$/, "")}`,
    }));
    throw invalid(what, file, issues);
  }
  const input: unknown = doc.toJS();
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    throw invalid(what, file, zodIssues(parsed.error.issues, { root: schema, input, file }));
  }
  const ruleIssues = options.rules?.(parsed.data, file) ?? [];
  if (ruleIssues.length > 0) throw invalid(what, file, ruleIssues);
  return parsed.data;
}

function invalid(what: string, file: string, issues: ValidationIssue[]): MappingError {
  const n = issues.length;
  return new MappingError(
    `${what} ${file} is invalid (${n} problem${n === 1 ? "" : "s"}):\n${formatIssues(issues)}`,
    {
      hint: "Fix each listed path; docs/mappings.md describes every key and value.",
      issues,
      details: { file },
    },
  );
}

/**
 * Parses a mapping from YAML text. `file` is only used in messages.
 * @throws MappingError with every problem (`issues`: file, path, message with found value and choices).
 */
export function parseMapping(text: string, file: string): MappingSpec {
  return parseYamlWith({
    text,
    file,
    schema: mappingSpecSchema,
    what: "Mapping file",
    rules: checkMappingRules,
  });
}

/**
 * Reads and validates a mapping file.
 * @example const spec = loadMapping("mappings/github.yaml");
 * @throws MappingError when the file is missing, not YAML, or invalid.
 */
export function loadMapping(file: string): MappingSpec {
  return parseMapping(readText(file, "Mapping file"), file);
}

/** Reads a file, turning a read failure into a `MappingError` naming the file. */
export function readText(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? "unknown";
    throw new MappingError(`${what} ${file} could not be read (${code}).`, {
      hint: "Check the path in the config (relative paths start at the config file's folder).",
      issues: [{ file, path: [], message: `could not be read (${code})` }],
      cause,
    });
  }
}
