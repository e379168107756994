import { createTarget, createTinypm } from "../../adapters/registry.js";
import { loadConfig, type LoadedConfig, type ResolvedJob } from "../../config/load.js";
import {
  MappingError,
  SyncError,
  ValidationError,
  type ValidationIssue,
} from "../../core/errors.js";
import type { ProbeResult, Tracker } from "../../core/tracker.js";
import { loadMapping } from "../../mapping/load.js";
import { loadUserMap } from "../../mapping/users.js";
import type { CliContext } from "../context.js";
import { configOption, configPath, logOptions } from "../options.js";
import { credentialVars } from "../../api/credential-vars.js";
import { sessionLogger, type LogFlags } from "../session.js";
import type { Logger } from "../../log/logger.js";
import type { RegisterCommand } from "./index.js";

/**
 * `check`: validates the config, every job's mapping and the user map (every problem at once),
 * then probes each system: reachable, token accepted, project visible, permissions enough.
 */
export const registerCheck: RegisterCommand = (program, ctx) => {
  const cmd = program
    .command("check")
    .description("validate config and mappings (all problems at once), then probe each system");
  configOption(cmd).option("--offline", "validate files only; do not contact any system");
  logOptions(cmd).action(async (flags: { config?: string; offline?: boolean } & LogFlags) => {
    // Offline, the secrets are not needed: the files can be checked on a machine without them.
    const loaded = loadConfig(configPath(ctx, flags.config), {
      env: ctx.env,
      secrets: flags.offline === true ? "optional" : "require",
    });
    validateFiles(loaded);
    ctx.stdout.write(
      `Config ${loaded.file}: ok (${loaded.jobs.length} job${loaded.jobs.length === 1 ? "" : "s"}, mappings and user map valid)\n`,
    );
    if (flags.offline === true) return;
    let failed = 0;
    const logger = sessionLogger(ctx, loaded, flags);
    for (const job of loaded.jobs) failed += await probeJob(ctx, job, logger);
    ctx.exitCode = failed > 0 ? 3 : 0;
  });
};

/** Loads every job's mapping and the user map; throws one MappingError listing every problem. */
function validateFiles(loaded: LoadedConfig): void {
  const issues: ValidationIssue[] = [];
  const collect = (fn: () => unknown): void => {
    try {
      fn();
    } catch (error) {
      if (error instanceof ValidationError) issues.push(...error.issues);
      else throw error;
    }
  };
  for (const job of loaded.jobs) {
    collect(() => {
      const spec = loadMapping(job.mappingPath);
      if (spec.to !== job.target.type) {
        issues.push({
          file: job.mappingPath,
          path: ["to"],
          message: `job "${job.job.name}" targets ${job.target.type} but this mapping maps to ${spec.to}`,
        });
      }
    });
  }
  const users = loaded.usersPath;
  if (users !== undefined) collect(() => loadUserMap(users));
  if (issues.length > 0) {
    throw new MappingError(
      `The mappings have ${issues.length} problem${issues.length === 1 ? "" : "s"}.`,
      { issues, hint: "Fix each problem listed (docs/mappings.md), then run check again." },
    );
  }
}

/** Probes tinyPM and the target of one job, prints a line for each; returns how many failed. */
async function probeJob(ctx: CliContext, job: ResolvedJob, logger: Logger): Promise<number> {
  const trackers: [string, Tracker][] = [
    [
      "tinyPM",
      createTinypm({
        baseUrl: job.tinypm.baseUrl,
        token: job.tinypm.token,
        projectId: job.job.tinypmProject,
        timeoutMs: job.tinypm.timeoutMs ?? 15_000,
        logger: logger.child({ system: "tinypm" }),
      }),
    ],
    [job.target.name, targetOf(job.target, logger)],
  ];
  let failed = 0;
  for (const [name, tracker] of trackers) {
    // Writes are needed only on the side(s) the job's direction writes to.
    const writes =
      tracker.system === "tinypm"
        ? job.job.direction !== "to-target"
        : job.job.direction !== "to-tinypm";
    const line = probeLine(await probe(tracker), credentialVars(job, tracker.system), writes);
    if (line.startsWith("FAIL")) failed++;
    ctx.stdout.write(`${line.slice(0, 4)} job ${job.job.name}: ${name}: ${line.slice(5)}\n`);
    await tracker.close();
  }
  return failed;
}

function targetOf(t: ResolvedJob["target"], logger: Logger): Tracker {
  return t.type === "github"
    ? createTarget({
        type: "github",
        baseUrl: t.baseUrl,
        owner: t.owner,
        repo: t.repo,
        token: t.token,
        tokenEnv: t.tokenEnv,
        logger: logger.child({ system: "github" }),
      })
    : createTarget({
        type: "jira",
        baseUrl: t.baseUrl,
        project: t.project,
        email: t.email ?? "",
        token: t.token,
        emailEnv: t.emailEnv,
        tokenEnv: t.tokenEnv,
        logger: logger.child({ system: "jira" }),
      });
}

/**
 * `ok   details`, or `FAIL [code] details (the variables holding the credentials)`. A side the
 * job only reads from passes without write permission.
 */
export function probeLine(result: ProbeResult, vars: readonly string[], needsWrite = true): string {
  const code = !result.reachable
    ? "remote_unavailable"
    : !result.authenticated
      ? "auth_failed"
      : !result.projectVisible
        ? "not_found"
        : needsWrite && !result.canWrite
          ? "permission_denied"
          : undefined;
  if (code === undefined) return `ok   ${result.details}`;
  const tagged = result.details.startsWith("[") ? result.details : `[${code}] ${result.details}`;
  const named = vars.filter((v) => !tagged.includes(v));
  const credentials =
    /^\[(auth_failed|permission_denied|not_found)\]/.test(tagged) && named.length > 0
      ? ` (credentials from ${named.map((v) => `$${v}`).join(" and ")})`
      : "";
  return `FAIL ${tagged}${credentials}`;
}

async function probe(tracker: Tracker): Promise<ProbeResult> {
  try {
    return await tracker.probe();
  } catch (error) {
    const message =
      error instanceof SyncError
        ? `[${error.code}] ${error.message}${error.hint ? ` (${error.hint})` : ""}`
        : String(error);
    return {
      system: tracker.system,
      reachable: false,
      authenticated: false,
      projectVisible: false,
      canWrite: false,
      details: message,
    };
  }
}
