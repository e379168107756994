import { Cron } from "croner";
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
    const cron =
      job.schedule !== undefined && "cron" in job.schedule ? job.schedule.cron : undefined;
    const cronProblem = cron === undefined ? undefined : cronError(cron);
    if (cronProblem !== undefined) {
      issues.push({
        file,
        path: ["jobs", i, "schedule", "cron"],
        message: `"${cron}" is not a cron expression (${cronProblem}); e.g. "*/5 * * * *" is every 5 minutes`,
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
  for (const [name, target] of Object.entries(config.targets)) {
    if (target.type === "jira" && target.deployment === "cloud" && target.emailEnv === undefined)
      issues.push({
        file,
        path: ["targets", name, "emailEnv"],
        message:
          'a Jira Cloud target needs emailEnv (the account email goes with the API token); for Jira Data Center set "deployment": "datacenter"',
      });
  }
  if (targetNames.length === 0) {
    issues.push({
      file,
      path: ["targets"],
      message: "no targets defined; add a `github` or `jira` target",
    });
  }
  return issues;
}

/** Why croner rejects a cron expression, or undefined when it is valid. */
function cronError(expression: string): string | undefined {
  try {
    new Cron(expression, { paused: true }).stop();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
