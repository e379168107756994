import type { z } from "zod";
import type { ValidationIssue } from "../core/errors.js";

/** Turns zod issues into our validation issues: path, what was found, what is allowed. */
export function zodIssues(file: string, issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.flatMap((issue) => expand(file, issue));
}

function expand(file: string, issue: z.core.$ZodIssue): ValidationIssue[] {
  const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({
      file,
      path: [...path, key],
      message: `unknown key "${key}"; remove it or check its spelling`,
    }));
  }
  if (
    issue.code === "invalid_union" &&
    "discriminator" in issue &&
    issue.discriminator !== undefined
  ) {
    return [{ file, path, message: `${issue.message}${found(issue)}` }];
  }
  return [{ file, path, message: `${lowerFirst(issue.message)}${found(issue)}` }];
}

function found(issue: z.core.$ZodIssue): string {
  if (!("input" in issue) || issue.input === undefined) return "";
  if (typeof issue.input === "object" && issue.input !== null) return "";
  const text = JSON.stringify(issue.input);
  return ` (found ${text.length > 60 ? `${text.slice(0, 57)}...` : text})`;
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}
