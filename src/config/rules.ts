import type { ValidationIssue } from "../core/errors.js";
import type { ParsedConfig } from "./schema.js";

/** Cross-field rules that a schema cannot express. Pure: returns every problem found. */
export function checkConfigRules(file: string, config: ParsedConfig): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const targetNames = Object.keys(config.targets);
  const seen = new Set<string>();
  config.jobs.forEach((job, i) => {
    if (seen.has(job.name)) {
      issues.push({
        file,
        path: ["jobs", i, "name"],
        message: `job name "${job.name}" is used twice; names must be unique`,
      });
    }
    seen.add(job.name);
    if (!targetNames.includes(job.target)) {
      issues.push({
        file,
        path: ["jobs", i, "target"],
        message: `no target named "${job.target}"; valid targets: ${targetNames.join(", ") || "(none defined)"}`,
      });
    }
    if (job.tinypm === undefined && config.tinypm === undefined) {
      issues.push({
        file,
        path: ["jobs", i, "tinypm"],
        message: "no tinyPM instance: add a top-level `tinypm` block or one in this job",
      });
    }
  });
  if (targetNames.length === 0) {
    issues.push({
      file,
      path: ["targets"],
      message: "no targets defined; add a `github` or `jira` target",
    });
  }
  return issues;
}
