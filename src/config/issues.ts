import type { z } from "zod";
import type { ValidationIssue } from "../core/errors.js";
import { closest } from "./suggest.js";

/** The keys allowed at a path of the config (for did-you-mean), or undefined when unknown. */
export type KnownKeys = (path: readonly (string | number)[]) => readonly string[] | undefined;

/** Turns zod issues into our validation issues: path, what was found, what is allowed. */
export function zodIssues(
  file: string,
  issues: readonly z.core.$ZodIssue[],
  known?: KnownKeys,
): ValidationIssue[] {
  return issues.flatMap((issue) => expand(file, issue, known));
}

function expand(file: string, issue: z.core.$ZodIssue, known?: KnownKeys): ValidationIssue[] {
  const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
  if (issue.code === "unrecognized_keys") {
    const allowed = known?.(path) ?? [];
    return issue.keys.map((key) => {
      const guess = closest(key, allowed);
      return {
        file,
        path: [...path, key],
        message:
          guess === undefined
            ? `unknown key "${key}"; remove it or check its spelling${allowed.length > 0 ? ` (allowed: ${allowed.join(", ")})` : ""}`
            : `unknown key "${key}"; did you mean "${guess}"?`,
      };
    });
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
