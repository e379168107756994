import { readConfigFile, type LoadedConfig, type ResolvedJob } from "../../config/load.js";
import {
  MappingError,
  SyncError,
  ValidationError,
  type ValidationIssue,
} from "../../core/errors.js";
import type { ProbeResult, Tracker } from "../../core/tracker.js";
import { loadMapping } from "../../mapping/load.js";
import { boardSpecOf } from "../../mapping/project.js";
import { loadUserMap } from "../../mapping/users.js";
import type { CliContext } from "../context.js";
import { configOption, configPath, logOptions } from "../options.js";
import { credentialVars } from "../../library/credential-vars.js";
import type { ConfigSession } from "../../library/job-session.js";
import { openTrackers } from "../../library/job-trackers.js";
import { sessionLogger, type LogFlags } from "../session.js";
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
    const loaded = readConfigFile(configPath(ctx, flags.config), {
      env: ctx.env,
      secrets: flags.offline === true ? "optional" : "require",
    });
    validateFiles(loaded);
    ctx.stdout.write(
      `Config ${loaded.file}: ok (${loaded.jobs.length} job${loaded.jobs.length === 1 ? "" : "s"}, mappings and user map valid)\n`,
    );
    if (flags.offline === true) return;
    let failed = 0;
    const session = { loaded, logger: sessionLogger(ctx, loaded, flags) };
    for (const job of loaded.jobs) failed += await probeJob(ctx, session, job);
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
  // The top-level user map and every job's own, each once.
  const userMaps = new Set([loaded.usersPath, ...loaded.jobs.map((j) => j.usersPath)]);
  for (const users of userMaps) if (users !== undefined) collect(() => loadUserMap(users));
  if (issues.length > 0) {
    throw new MappingError(
      `The mappings have ${issues.length} problem${issues.length === 1 ? "" : "s"}.`,
      { issues, hint: "Fix each problem listed (docs/mappings.md), then run check again." },
    );
  }
}

/**
 * Probes tinyPM and the target of one job, prints a line for each; returns how many failed.
 * The trackers are the job commands' own (every connection setting of the config honoured),
 * and each probe request is sent once: a probe reports what it sees, it does not retry.
 */
async function probeJob(
  ctx: CliContext,
  session: ConfigSession,
  job: ResolvedJob,
): Promise<number> {
  const trackers = openTrackers(session, job, {
    onGateEvent: () => undefined,
    retries: false,
    // With targets.github.project, the probe checks the board the mapping's fields need.
    board: boardSpecOf(loadMapping(job.mappingPath)),
  });
  const probed: [string, Tracker][] = [
    ["tinyPM", trackers.tinypm],
    [job.target.name, trackers.target],
  ];
  let failed = 0;
  try {
    for (const [name, tracker] of probed) {
      // Writes are needed only on the side(s) the job's direction writes to.
      const writes =
        tracker.system === "tinypm"
          ? job.job.direction !== "to-target"
          : job.job.direction !== "to-tinypm";
      const result = await probe(tracker);
      const vars = credentialVars(job, tracker.system);
      // The system's own line, then one for each part probed beside it (a Project board).
      for (const r of [result, ...(result.parts ?? [])]) {
        const line = probeLine(r, vars, writes);
        if (line.startsWith("FAIL")) failed++;
        ctx.stdout.write(`${line.slice(0, 4)} job ${job.job.name}: ${name}: ${line.slice(5)}\n`);
      }
    }
  } finally {
    await trackers.close();
  }
  return failed;
}

/**
 * `ok   details`, or `FAIL [code] details (the variables holding the credentials) — hint: what
 * to do` (the hint of the error the probe mapped). A side the job only reads from passes without
 * write permission.
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
  const hint =
    result.hint === undefined || tagged.includes(result.hint) ? "" : ` — hint: ${result.hint}`;
  return `FAIL ${tagged}${credentials}${hint}`;
}

async function probe(tracker: Tracker): Promise<ProbeResult> {
  try {
    return await tracker.probe();
  } catch (error) {
    const message = error instanceof SyncError ? `[${error.code}] ${error.message}` : String(error);
    return {
      system: tracker.system,
      reachable: false,
      authenticated: false,
      projectVisible: false,
      canWrite: false,
      details: message,
      hint: error instanceof SyncError ? error.hint : undefined,
    };
  }
}
