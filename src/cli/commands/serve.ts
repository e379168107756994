import { ConfigError, UsageError } from "../../core/errors.js";
import { targetLocation } from "../../core/target-location.js";
import type { ResolvedJob } from "../../config/load.js";
import type { GateEvent } from "../../core/request-gate.js";
import { createAccess } from "../../serve/auth.js";
import { startServeServer } from "../../serve/server.js";
import { createService } from "../../serve/service.js";
import type { ServeJob, SystemCheck } from "../../serve/types.js";
import type { LocatedIssue } from "../../serve/webhook-jira-worklog.js";
import { webRootOf } from "../../adapters/tinypm/map.js";
import { itemPages } from "../../serve/item-pages.js";
import { writeLine } from "../context.js";
import { listenOn } from "../listen-error.js";
import { runConfiguredJob } from "../job-run.js";
import { configOption, logOptions } from "../options.js";
import {
  keepStateConnections,
  openConfig,
  openState,
  type ConfigSession,
  type LogFlags,
} from "../session.js";
import { openJob } from "../../library/job-session.js";
import { keepWorkerPresence } from "../worker-presence.js";
import type { RegisterCommand } from "./index.js";
import { parseCommentBody } from "../../adapters/github/marker.js";

/** The port `serve` listens on when --port is not given. */
export const DEFAULT_SERVE_PORT = 8787;
const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

interface ServeFlags extends LogFlags {
  config?: string;
  host: string;
  port: string;
  debounce: string;
}

/** `serve`: the sync service — schedules, webhooks, dashboard, metrics (docs/serve.md). */
export const registerServe: RegisterCommand = (program, ctx) => {
  const cmd = program
    .command("serve")
    .description(
      "run every job on its schedule and on webhooks, with a dashboard, /api and /metrics, until SIGINT/SIGTERM",
    );
  configOption(cmd)
    .option(
      "--host <host>",
      "address to listen on (beyond 127.0.0.1 needs serve.auth.tokenEnv)",
      "127.0.0.1",
    )
    .option("--port <port>", "port (0 = any free port)", String(DEFAULT_SERVE_PORT))
    .option("--debounce <ms>", "quiet time after a webhook delivery before its run starts", "1000");
  logOptions(cmd).action(async (flags: ServeFlags) => {
    const port = Number(flags.port);
    if (!/^\d+$/.test(flags.port) || port > 65535)
      throw new UsageError(`--port must be an integer from 0 to 65535, got "${flags.port}"`);
    const debounceMs = Number(flags.debounce);
    if (!/^\d+$/.test(flags.debounce) || debounceMs > 60_000)
      throw new UsageError(
        `--debounce must be milliseconds from 0 to 60000, got "${flags.debounce}"`,
      );
    const session = openConfig(ctx, flags.config, flags);
    const { loaded, logger } = session;
    if (!LOOPBACK.has(flags.host) && loaded.serveToken === undefined) {
      const name = loaded.config.serve?.auth?.tokenEnv;
      throw new ConfigError(
        name === undefined
          ? `serve binds to ${flags.host}, beyond this machine, and the config names no token for the dashboard.`
          : `serve binds to ${flags.host}, beyond this machine, and the environment variable ${name} (serve.auth.tokenEnv) is not set.`,
        {
          hint:
            name === undefined
              ? 'Add "serve": { "auth": { "tokenEnv": "TINYPM_SYNC_SERVE_TOKEN" } } to the config and export that variable, or bind to 127.0.0.1.'
              : `Export ${name} with a long random value, or bind to 127.0.0.1.`,
        },
      );
    }
    checkWebhookSecrets(loaded.jobs, ctx.env);
    const byName = new Map(loaded.jobs.map((j) => [j.job.name, j]));
    // Every poll, state check, dashboard read and run below opens a store and closes it again:
    // on PostgreSQL they all share this process's pool, kept open until serve stops.
    const connections = keepStateConnections(loaded);
    const service = createService({
      jobs: loaded.jobs.map(serveJob),
      logger,
      execute: async (name, items, onGateEvent, onEvent) => {
        const resolved = byName.get(name);
        if (resolved === undefined) throw new UsageError(`no job named ${name}`);
        // A run for webhooks reads only the items they named and their tinyPM counterparts; any
        // other run is the job's incremental sync, as `sync` runs it.
        return runConfiguredJob(ctx, session, resolved, {
          mode: "sync",
          dryRun: false,
          onGateEvent,
          onEvent,
          targetItems: items === undefined ? undefined : [...items],
        });
      },
      probe: (onGateEvent) => probeAll(session, onGateEvent),
      readState: async (fn) => {
        const state = await openState(loaded, true);
        try {
          return await fn(state);
        } finally {
          await state.close();
        }
      },
      writeState: async (fn) => {
        const state = await openState(loaded, false);
        try {
          return await fn(state);
        } finally {
          await state.close();
        }
      },
    });
    // Joined before listening: on a new PostgreSQL database the join creates the schema, so the
    // dashboard and API answer from an empty state from the first request, not a 500.
    const presence = keepWorkerPresence(loaded, logger);
    await presence.firstAttempt;
    let server;
    try {
      server = await listenOn({ what: "serve", host: flags.host, port }, () =>
        startServeServer({
          host: flags.host,
          port,
          service,
          access: createAccess(loaded.serveToken),
          logger,
          debounceMs,
          locateJiraIssue: (target, issueId) => locateJiraIssue(session, target, issueId),
        }),
      );
    } catch (error) {
      await presence.close();
      await connections.close();
      throw error;
    }
    writeLine(ctx.stdout, `tinypm-sync listening on ${server.origin}`);
    for (const line of webhookNotices(loaded.jobs, server.origin)) writeLine(ctx.stdout, line);
    logger.info(
      { jobs: loaded.jobs.map((j) => j.job.name), auth: loaded.serveToken !== undefined },
      "serving",
    );
    service.start();
    const signal = await ctx.waitForStop();
    logger.info({ signal }, "stopping: the current run ends at its next item");
    await service.stop();
    await presence.close();
    await server.close();
    await connections.close();
    logger.info("stopped; state is consistent");
    ctx.exitCode = 0;
  });
};

function serveJob(r: ResolvedJob): ServeJob {
  const t = r.target;
  return {
    name: r.job.name,
    schedule: r.job.schedule,
    pages: itemPages(webRootOf(r.tinypm.baseUrl), t),
    target:
      t.type === "github"
        ? {
            name: t.name,
            type: "github",
            owner: t.owner,
            repo: t.repo,
            projectOwner: t.project?.owner,
            ownComment: (body) => parseCommentBody(body).block !== undefined,
            webhookSecret: t.webhookSecret,
            location: targetLocation(t),
          }
        : {
            name: t.name,
            type: "jira",
            project: t.project,
            baseUrl: t.baseUrl,
            webhookSecret: t.webhookSecret,
            deployment: t.deployment,
            location: targetLocation(t),
          },
  };
}

/**
 * One line per target whose webhooks the service refuses (no `webhookSecretEnv`), saying how to
 * receive them; one per target that takes them, naming its URL.
 */
export function webhookNotices(jobs: readonly ResolvedJob[], origin: string): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const { target: t } of jobs) {
    if (seen.has(t.name)) continue;
    seen.add(t.name);
    const system = t.type === "github" ? "GitHub" : "Jira";
    const url = `${origin}/webhooks/${t.type}`;
    const names = jobs.filter((j) => j.target.name === t.name).map((j) => j.job.name);
    const jobWords = `job${names.length === 1 ? "" : "s"} ${names.join(", ")}`;
    if (t.webhookSecret !== undefined) {
      lines.push(`webhooks: target "${t.name}" (${system}) takes deliveries at ${url}`);
      continue;
    }
    const variable = t.type === "github" ? "GITHUB_WEBHOOK_SECRET" : "JIRA_WEBHOOK_SECRET";
    lines.push(
      `webhooks: target "${t.name}" (${system}) has no secret, so its deliveries to ${url} are refused (401), and ${jobWords} ${names.length === 1 ? "runs" : "run"} on schedule and "Sync now" only. To take them, add "webhookSecretEnv": "${variable}" to the target and export ${variable} with the webhook's secret.`,
    );
  }
  return lines;
}

/** A target that names `webhookSecretEnv` needs the variable set: refuse to start otherwise. */
function checkWebhookSecrets(
  jobs: readonly ResolvedJob[],
  env: Readonly<Record<string, string | undefined>>,
): void {
  for (const { target } of jobs) {
    const name = target.webhookSecretEnv;
    if (name !== undefined && target.webhookSecret === undefined)
      throw new ConfigError(
        `Target "${target.name}" names webhookSecretEnv ${name}, but that environment variable is ${env[name] === undefined ? "not set" : "empty"}.`,
        {
          hint: `Export ${name} with the secret the webhook is configured with, or remove webhookSecretEnv.`,
        },
      );
  }
}

/**
 * A Jira issue by numeric id on a target (worklog deliveries name no key): its key and project,
 * read with the credentials of a job on that target; `undefined` where the site has no such issue.
 */
async function locateJiraIssue(
  session: ConfigSession,
  target: string,
  issueId: string,
): Promise<LocatedIssue | undefined> {
  const resolved = session.loaded.jobs.find((j) => j.target.name === target);
  if (resolved === undefined) return undefined;
  const job = openJob(session, resolved, () => undefined);
  try {
    const item = await job.target.get({ kind: "story", id: issueId });
    const project = item === undefined ? undefined : /^([A-Z][A-Z0-9_]*)-\d+$/.exec(item.id)?.[1];
    return item === undefined || project === undefined ? undefined : { key: item.id, project };
  } finally {
    await job.close();
  }
}

/** Probes tinyPM and the target of every job (readiness): reachable and the token accepted. */
async function probeAll(
  session: ConfigSession,
  onGateEvent: (e: GateEvent) => void,
): Promise<SystemCheck[]> {
  const checks: SystemCheck[] = [];
  for (const resolved of session.loaded.jobs) {
    const job = openJob(session, resolved, () => undefined, undefined, { onGateEvent });
    try {
      for (const tracker of [job.tinypm, job.target]) {
        try {
          const p = await tracker.probe();
          const ok = p.reachable && p.authenticated && p.projectVisible;
          const hint = ok || p.hint === undefined ? "" : ` — hint: ${p.hint}`;
          checks.push({
            job: resolved.job.name,
            system: tracker.system,
            ok,
            detail: `${p.details}${hint}`,
          });
        } catch (error) {
          checks.push({
            job: resolved.job.name,
            system: tracker.system,
            ok: false,
            detail: error instanceof Error ? error.message : String(error),
          });
        }
      }
    } finally {
      await job.close();
    }
  }
  return checks;
}
