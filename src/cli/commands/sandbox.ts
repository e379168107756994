import { UsageError } from "../../core/errors.js";
import { parseFaultSpec } from "../../server-kit/faults.js";
import type { DeliveryAttempt } from "../../server-kit/webhook-queue.js";
import { writeLine } from "../context.js";
import { webhookFailureLine, webhookStartLine } from "../sandbox-webhook-words.js";
import { listenOn } from "../listen-error.js";
import { loadGithubUsers, loadJiraUsers } from "../sandbox-users.js";
import type { RegisterCommand } from "./index.js";

/** The flags every sandbox takes (architecture.md, CLI contract). */
export interface SandboxFlags {
  readonly host: string;
  readonly port: number;
  readonly token: string | undefined;
  readonly rateLimits: string;
  readonly timeScale: number;
  readonly faults: string | undefined;
  readonly seed: number;
  readonly consistency: "strong" | "eventual";
  /** `--users FILE`: the sandbox's people (sandbox-users.ts). */
  readonly users?: string | undefined;
  /** Deliver webhooks here (GitHub or Jira), signed with the secret from `--webhook-secret-env`. */
  readonly webhook: { readonly url: string; readonly secret: string | undefined } | undefined;
  /** `--deployment cloud|datacenter` (Jira only). */
  readonly deployment: "cloud" | "datacenter";
  /** `--max-result-window N` (Jira Data Center only): how deep `/search` pages by `startAt`. */
  readonly maxResultWindow?: number | undefined;
}

/** A started sandbox as the command sees it: the lines it prints and how to stop it. */
export interface StartedSandbox {
  /** First stdout line, e.g. `GitHub sandbox listening on http://127.0.0.1:41234`. */
  readonly banner: string;
  /** Further stdout lines, the first being `token: <token>`. */
  readonly lines: readonly string[];
  close(): Promise<void>;
}

/** `say` prints a line while the sandbox runs (a failed webhook delivery). */
type SandboxStarter = (flags: SandboxFlags, say: (line: string) => void) => Promise<StartedSandbox>;

/** Delays before each retry of a failed delivery, as the sandboxes' webhook senders use them. */
const GITHUB_RETRIES = [1000, 2000, 4000];
const JIRA_RETRIES = [1000, 2000, 4000, 8000, 16000];

/**
 * The sandbox's webhook options with a line for every failed delivery attempt, and the line that
 * says where deliveries go (none without `--webhook`).
 */
function webhookWithLines(
  webhook: SandboxFlags["webhook"],
  retries: readonly number[],
  retryable: (status: number | "error") => boolean,
  say: (line: string) => void,
): { options: object; lines: string[] } {
  if (webhook === undefined) return { options: {}, lines: [] };
  return {
    options: {
      webhook: {
        ...webhook,
        retryDelaysMs: retries,
        onAttempt: (a: DeliveryAttempt) => {
          const line = webhookFailureLine(a, webhook.url, retries, retryable(a.status));
          if (line !== undefined) say(line);
        },
      },
    },
    lines: [webhookStartLine(webhook.url, webhook.secret !== undefined)],
  };
}

/** Checks --rate-limits with the sandbox's own parser; a bad spec is a usage error with an example. */
function checkRateLimits(parse: (spec: string) => unknown, spec: string, example: string): void {
  try {
    parse(spec);
  } catch (error) {
    throw new UsageError(`--rate-limits: ${(error as Error).message}`, {
      hint: `Use off, real, or e.g. ${example}.`,
    });
  }
}

/** The options every sandbox takes from the command line. */
function common(flags: SandboxFlags) {
  return {
    host: flags.host,
    port: flags.port,
    rateLimits: flags.rateLimits,
    timeScale: flags.timeScale,
    seed: flags.seed,
    consistency: flags.consistency,
    ...(flags.token === undefined ? {} : { token: flags.token }),
    ...(flags.faults === undefined ? {} : { faults: flags.faults }),
  };
}

/** `users: alice, bob` when the users came from a file. */
function usersLine(users: readonly (string | { login: string })[] | undefined): string[] {
  if (users === undefined) return [];
  return [`users: ${users.map((u) => (typeof u === "string" ? u : u.login)).join(", ")}`];
}

/** A user the sandbox refuses (a login GitHub would not accept, a duplicate) names the file. */
async function withUsersFile<T>(file: string | undefined, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    if (file === undefined || !(error instanceof Error) || !/user/i.test(error.message))
      throw error;
    throw new UsageError(`--users ${file}: ${error.message}`, {
      hint: "Fix that entry of the users file; docs/sandboxes.md lists what each entry may hold.",
      cause: error,
    });
  }
}

/** One entry per bundled sandbox: name → starter. */
const SANDBOXES: Readonly<Record<string, SandboxStarter>> = {
  github: async (flags, say) => {
    // Loaded by the command that runs it: every other command starts without the sandboxes.
    const { parseRateLimitSpec, startGithubSandbox } =
      await import("../../sandboxes/github/index.js");
    checkRateLimits(
      parseRateLimitSpec,
      flags.rateLimits,
      "core=5000/h,creates=80/min,creates=500/h,search=30/min",
    );
    const users = flags.users === undefined ? undefined : loadGithubUsers(flags.users);
    // The GitHub sandbox retries a delivery answered with an error or not at all (webhooks.ts).
    const hook = webhookWithLines(
      flags.webhook,
      GITHUB_RETRIES,
      (status) => status === "error" || status >= 300,
      say,
    );
    const sandbox = await withUsersFile(flags.users, () =>
      startGithubSandbox({
        ...common(flags),
        ...(users !== undefined && { users }),
        ...hook.options,
      }),
    );
    return {
      banner: `GitHub sandbox listening on ${sandbox.url}`,
      lines: [
        `token: ${sandbox.token}`,
        `read-only token: ${sandbox.readToken}`,
        `repository: ${sandbox.owner}/${sandbox.repo}`,
        ...usersLine(users),
        ...hook.lines,
      ],
      close: () => sandbox.close(),
    };
  },
  jira: async (flags, say) => {
    const { parseDcRateLimitSpec, parseRateLimitSpec, startJiraSandbox } =
      await import("../../sandboxes/jira/index.js");
    const dc = flags.deployment === "datacenter";
    checkRateLimits(
      dc ? parseDcRateLimitSpec : parseRateLimitSpec,
      flags.rateLimits,
      dc
        ? "max=100,fill=10/1s"
        : "get=100/s,post=100/s,put=50/s,delete=50/s,issue-writes=20/2s,issue-writes=100/30s",
    );
    const users = flags.users === undefined ? undefined : loadJiraUsers(flags.users);
    // The Jira sandbox retries no answer, 408, 409, 425, 429 and 5xx (its webhooks.ts).
    const hook = webhookWithLines(
      flags.webhook,
      JIRA_RETRIES,
      (status) => status === "error" || [408, 409, 425, 429].includes(status) || status >= 500,
      say,
    );
    const sandbox = await withUsersFile(flags.users, () =>
      startJiraSandbox({
        ...common(flags),
        ...(users !== undefined && { users }),
        ...hook.options,
        ...(flags.maxResultWindow !== undefined && { maxResultWindow: flags.maxResultWindow }),
        deployment: flags.deployment,
      }),
    );
    return {
      banner: `Jira sandbox listening on ${sandbox.url}`,
      lines: [
        `token: ${sandbox.token}`,
        ...(dc
          ? ["deployment: datacenter (REST v2; send the token as 'Authorization: Bearer')"]
          : [`email: ${sandbox.email}`]),
        `project: ${sandbox.projectKey}`,
        ...(flags.maxResultWindow === undefined
          ? []
          : [`max result window: ${flags.maxResultWindow}`]),
        ...usersLine(users),
        ...hook.lines,
      ],
      close: () => sandbox.close(),
    };
  },
};

interface RawFlags {
  host: string;
  port: string;
  token?: string;
  rateLimits: string;
  timeScale: string;
  faults?: string;
  seed: string;
  consistency: string;
  users?: string;
  webhook?: string;
  webhookSecretEnv?: string;
  deployment: string;
  maxResultWindow?: string;
}

/** `--max-result-window`: a positive integer, and only for the Data Center Jira sandbox. */
function parseMaxResultWindow(raw: string | undefined, deployment: string): number | undefined {
  if (raw === undefined) return undefined;
  if (deployment !== "datacenter")
    throw new UsageError("--max-result-window is a Jira Data Center sandbox option.", {
      hint: "Run `tinypm-sync sandbox jira --deployment datacenter --max-result-window N`; Jira Cloud pages its search by token, with no window.",
    });
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1)
    throw new UsageError(`--max-result-window must be a positive integer, got "${raw}"`, {
      hint: "Jira 11's default is 10000; e.g. --max-result-window 100 makes deep startAt paging fail early.",
    });
  return n;
}

function parseFlags(
  raw: RawFlags,
  env: Readonly<Record<string, string | undefined>>,
): SandboxFlags {
  const port = Number(raw.port);
  if (!/^\d+$/.test(raw.port) || port > 65535) {
    throw new UsageError(`--port must be an integer from 0 to 65535, got "${raw.port}"`);
  }
  const timeScale = Number(raw.timeScale);
  if (!Number.isFinite(timeScale) || timeScale <= 0) {
    throw new UsageError(`--time-scale must be a positive number, got "${raw.timeScale}"`, {
      hint: "1 is real time; 60 makes a minute pass in a second.",
    });
  }
  if (!/^\d+$/.test(raw.seed)) {
    throw new UsageError(`--seed must be a non-negative integer, got "${raw.seed}"`);
  }
  if (raw.faults !== undefined) {
    try {
      parseFaultSpec(raw.faults);
    } catch (error) {
      throw new UsageError(`--faults: ${(error as Error).message}`, {
        hint: "Example: --faults '500:0.1,403-secondary:0.05@POST /repos/**,latency=50'.",
      });
    }
  }
  if (raw.consistency !== "strong" && raw.consistency !== "eventual") {
    throw new UsageError(`--consistency must be strong or eventual, got "${raw.consistency}"`, {
      hint: "eventual makes listings and search lag writes by a second, as on the real services.",
    });
  }
  if (raw.webhookSecretEnv !== undefined && raw.webhook === undefined)
    throw new UsageError("--webhook-secret-env needs --webhook.", {
      hint: "Add --webhook http://127.0.0.1:8787/webhooks/github.",
    });
  if (raw.deployment !== "cloud" && raw.deployment !== "datacenter")
    throw new UsageError(`--deployment must be cloud or datacenter, got "${raw.deployment}"`, {
      hint: "datacenter serves Jira Data Center's REST v2 with personal access tokens.",
    });
  const maxResultWindow = parseMaxResultWindow(raw.maxResultWindow, raw.deployment);
  let webhook: SandboxFlags["webhook"];
  if (raw.webhook !== undefined) {
    if (!/^https?:\/\/\S+$/.test(raw.webhook))
      throw new UsageError(`--webhook must be an http(s) URL, got "${raw.webhook}"`);
    const name = raw.webhookSecretEnv;
    const secret = name === undefined ? undefined : env[name];
    if (name !== undefined && (secret === undefined || secret === ""))
      throw new UsageError(
        `--webhook-secret-env names ${name}, but that environment variable is not set.`,
        {
          hint: `Export ${name} with the webhook's secret (the one serve's webhookSecretEnv names).`,
        },
      );
    webhook = { url: raw.webhook, secret };
  }
  return {
    webhook,
    deployment: raw.deployment,
    maxResultWindow,
    consistency: raw.consistency,
    host: raw.host,
    port,
    token: raw.token,
    rateLimits: raw.rateLimits,
    timeScale,
    faults: raw.faults,
    seed: Number(raw.seed),
    users: raw.users,
  };
}

export const registerSandbox: RegisterCommand = (program, ctx) => {
  program
    .command("sandbox")
    .description("run a local GitHub- or Jira-compatible server (until SIGINT/SIGTERM)")
    .argument("<name>", `which sandbox: ${Object.keys(SANDBOXES).join("|")}`)
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--port <port>", "port (0 = any free port)", "0")
    .option("--token <token>", "API token (default: a random one, printed)")
    .option(
      "--rate-limits <spec>",
      "off, real, or e.g. core=5000/h,creates=80/min,creates=500/h",
      "real",
    )
    .option("--time-scale <n>", "run rate-limit windows and the clock N times faster", "1")
    .option("--faults <spec>", "fault injection, e.g. '500:0.1,403-secondary:0.05@POST /repos/**'")
    .option("--seed <n>", "seed of the fault decisions", "1")
    .option(
      "--consistency <mode>",
      "strong, or eventual: listings (GitHub) and JQL search (Jira) lag writes by a second",
      "strong",
    )
    .option("--webhook <url>", "deliver a webhook for every change made through the API")
    .option(
      "--webhook-secret-env <name>",
      "environment variable holding the secret deliveries are signed with",
    )
    .option(
      "--users <file>",
      "the sandbox's users from a YAML or JSON file (logins, names, emails and whether they show, who can be assigned)",
    )
    .option(
      "--deployment <kind>",
      "jira only: cloud, or datacenter (REST v2, wiki markup, users by name, Bearer PATs)",
      "cloud",
    )
    .option(
      "--max-result-window <n>",
      "jira --deployment datacenter only: how deep /search pages by startAt (startAt + maxResults past it answers 400)",
    )
    .action(async (name: string, raw: RawFlags) => {
      const start = SANDBOXES[name];
      if (start === undefined) {
        throw new UsageError(
          `unknown sandbox "${name}". Valid sandboxes: ${Object.keys(SANDBOXES).join(", ")}.`,
          {
            hint: "Run `tinypm-sync sandbox github`.",
          },
        );
      }
      const flags = parseFlags(raw, ctx.env);
      if (name !== "jira" && flags.deployment !== "cloud")
        throw new UsageError(`--deployment is a Jira sandbox option; ${name} has none.`, {
          hint: "Run `tinypm-sync sandbox jira --deployment datacenter`.",
        });
      const what = name === "github" ? "The GitHub sandbox" : "The Jira sandbox";
      const sandbox = await listenOn({ what, host: flags.host, port: flags.port }, () =>
        start(flags, (line) => {
          writeLine(ctx.stderr, line);
        }),
      );
      writeLine(ctx.stdout, sandbox.banner);
      for (const line of sandbox.lines) writeLine(ctx.stdout, line);
      await ctx.waitForStop();
      await sandbox.close();
      ctx.exitCode = 0;
    });
};
