import type { ServerResponse } from "node:http";
import { createFaultInjector, parseFaultSpec } from "../../server-kit/faults.js";
import { startHttpServer } from "../../server-kit/http.js";
import { createStats, type ServerStats, type StatsRecorder } from "../../server-kit/stats.js";
import { randomToken } from "../../server-kit/tokens.js";
import { createDcRateLimiter, parseDcRateLimitSpec } from "./dc-rate-limit.js";
import { createRateLimiter, parseRateLimitSpec } from "./rate-limit.js";
import { createJiraRouter } from "./routes.js";
import { createJiraHandler } from "./server.js";
import { createSite } from "./site.js";
import { createStore } from "./store.js";
import type { JiraSandboxUser } from "./users.js";
import { createJiraWebhookSender, type JiraWebhookOptions } from "./webhooks.js";
import { dcWebhookPayload } from "./dc-routes.js";
import type { WorkflowSpec } from "./workflow.js";

export type { JiraSandboxUser } from "./users.js";
export type { JiraWebhookOptions } from "./webhooks.js";

export type { WorkflowSpec } from "./workflow.js";
export { DEFAULT_WORKFLOW } from "./workflow.js";
export { parseRateLimitSpec, REAL_RATE_LIMITS } from "./rate-limit.js";
export { parseDcRateLimitSpec, REAL_DC_RATE_LIMITS } from "./dc-rate-limit.js";

/** The counters answered at `GET /_sandbox/stats`. */
export type SandboxStats = ServerStats;

export interface JiraSandboxOptions {
  /** @default "127.0.0.1" */
  host?: string;
  /** @default 0 (a free port) */
  port?: number;
  /** The account's email for Basic auth. @default "sandbox@example.com" */
  email?: string;
  /** The API token (on Data Center, the admin's personal access token). @default a random token */
  token?: string;
  /**
   * `off`, `real` (Jira Cloud's burst and per-issue limits) or a spec such as
   * `get=100/s,post=100/s,put=50/s,delete=50/s,issue-writes=20/2s,issue-writes=100/30s`.
   * @default "off"
   */
  rateLimits?: "off" | "real" | (string & {});
  /** Runs rate-limit windows N times faster than real time. @default 1 */
  timeScale?: number;
  /** A fault spec (see `src/server-kit/faults.ts`). @default "" */
  faults?: string;
  /** Seed of the fault injector's PRNG. @default 1 */
  seed?: number;
  /** @default "WID" (project name "Widgets") */
  projectKey?: string;
  /** @default "customfield_10016"; the sprint field is customfield_10020 */
  storyPointsFieldId?: string;
  /**
   * The site's users (`acc-<login>`): logins, or entries saying each user's display name, email,
   * whether the profile shows the email, and whether the user is assignable in the project.
   * @default alice, bob, carol, dave, erin, frank (every second one hides the email)
   */
  users?: readonly (string | JiraSandboxUser)[];
  /** @default To Do → In Progress → Testing → Done, Rejected (see DEFAULT_WORKFLOW) */
  workflow?: WorkflowSpec;
  /**
   * The priority an issue created without one gets, as the project's priority scheme says (create
   * metadata's `defaultValue`). @default "Medium"
   */
  defaultPriority?: "Highest" | "High" | "Medium" | "Low" | "Lowest";
  /** Recent writes stay invisible to JQL search for this long (unless reconciled). @default 0 */
  indexingLagMs?: number;
  /**
   * `eventual`: JQL search lags writes as Jira Cloud's index does (`indexingLagMs`, 1000 unless
   * given); `strong` leaves `indexingLagMs` as given. @default "strong"
   */
  consistency?: "strong" | "eventual";
  /** Per-issue caps, past which Jira answers 413. @default 5000 comments, 10000 worklogs */
  maxCommentsPerIssue?: number;
  maxWorklogsPerIssue?: number;
  /**
   * The time source (epoch ms) of issue timestamps and of the search index's lag; tests move it
   * by hand to decide when recent writes become searchable. @default Date.now
   */
  now?: () => number;
  /** Deliver a webhook for every change made through the API (docs/sandboxes.md). */
  webhook?: JiraWebhookOptions;
  /**
   * `datacenter`: Jira Data Center 10.x — REST v2 only, wiki-markup strings, users by
   * `name`/`key`, the token as a Bearer PAT, `/search` with `startAt`, DC rate-limit headers
   * (`rateLimits`: `off`, `real` or `max=N,fill=N/Ns`; the bucket refills by `now` when given).
   * @default "cloud"
   */
  deployment?: "cloud" | "datacenter";
  /**
   * Data Center: how deep `/search` pages by `startAt` (Jira 11's `maxResultWindow`, from its
   * search platform); a page past it is refused with 400. @default 10000
   */
  maxResultWindow?: number;
}

export interface JiraSandbox {
  readonly deployment: "cloud" | "datacenter";
  /** The origin, e.g. `http://127.0.0.1:41235` (REST at /rest/api/3, Agile at /rest/agile/1.0). */
  readonly url: string;
  readonly email: string;
  readonly token: string;
  readonly projectKey: string;
  stats(): SandboxStats;
  reset(): void;
  setFaults(spec: string): void;
  /** Resolves once every webhook delivery queued so far was sent (or gave up). */
  drainWebhooks(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a Jira Cloud–compatible server on 127.0.0.1 (port 0 by default). */
export async function startJiraSandbox(options: JiraSandboxOptions = {}): Promise<JiraSandbox> {
  const email = options.email ?? "sandbox@example.com";
  const token = options.token ?? randomToken();
  const timeScale = options.timeScale ?? 1;
  if (!(timeScale > 0)) throw new Error(`time scale must be a positive number (got ${timeScale})`);
  const site = createSite({
    email,
    projectKey: options.projectKey,
    storyPointsFieldId: options.storyPointsFieldId,
    users: options.users,
    workflow: options.workflow,
    defaultPriority: options.defaultPriority,
    maxResultWindow: options.maxResultWindow,
  });
  const clock = options.now ?? Date.now;
  const store = createStore(site, clock);
  const stats = createStats();
  const faults = createFaultInjector(parseFaultSpec(options.faults ?? ""), options.seed ?? 1);
  const deployment = options.deployment ?? "cloud";
  const limiter =
    deployment === "datacenter"
      ? createDcRateLimiter(parseDcRateLimitSpec(options.rateLimits ?? "off"))
      : createRateLimiter(parseRateLimitSpec(options.rateLimits ?? "off"));
  const reset = (): void => {
    store.reset();
    stats.reset();
    limiter.reset();
  };
  const t0 = Date.now();
  let origin = "";
  const webhooks =
    options.webhook === undefined
      ? undefined
      : createJiraWebhookSender(
          store,
          options.webhook,
          deployment === "datacenter"
            ? (payload, at) => dcWebhookPayload(store, at, payload)
            : undefined,
        );
  const handler = createJiraHandler({
    store,
    router: createJiraRouter(deployment),
    deployment,
    faults,
    stats,
    limiter,
    email,
    token,
    timeScale,
    // DC's token bucket refills by the sandbox's clock when a test gives one (Cloud's windows
    // keep real time, scaled).
    rateClock:
      deployment === "datacenter" && options.now !== undefined
        ? options.now
        : () => t0 + (Date.now() - t0) * timeScale,
    indexingLagMs: options.indexingLagMs ?? (options.consistency === "eventual" ? 1000 : 0),
    clock,
    limits: {
      maxCommentsPerIssue: options.maxCommentsPerIssue ?? 5000,
      maxWorklogsPerIssue: options.maxWorklogsPerIssue ?? 10_000,
    },
    origin: () => origin,
    webhooks,
    sandboxRoute: (method, path, res) =>
      sandboxRoute({ method, path, res, stats: () => stats.snapshot(), reset }),
  });
  const server = await startHttpServer({
    host: options.host,
    port: options.port,
    handler,
    now: clock,
    onError: internalError(stats),
  });
  origin = server.origin;
  return {
    deployment,
    url: server.origin,
    email,
    token,
    projectKey: site.project.key,
    stats: () => stats.snapshot(),
    reset,
    setFaults: (spec) => {
      faults.setRules(parseFaultSpec(spec));
    },
    drainWebhooks: () => webhooks?.drain() ?? Promise.resolve(),
    close: () => {
      webhooks?.close();
      return server.close();
    },
  };
}

/** A bug in the sandbox still answers in Jira's error shape, so clients report it sensibly. */
function internalError(stats: StatsRecorder) {
  return (error: unknown, res: ServerResponse): void => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    stats.status(500);
    const message = error instanceof Error ? error.message : String(error);
    const body = JSON.stringify({
      errorMessages: [`Internal server error: ${message}`],
      errors: {},
    });
    res.writeHead(500, { "content-type": "application/json;charset=UTF-8" }).end(body);
  };
}

/** `GET /_sandbox/stats` and `POST /_sandbox/reset`, outside the API and without auth. */
function sandboxRoute(opts: {
  method: string;
  path: string;
  res: ServerResponse;
  stats: () => SandboxStats;
  reset: () => void;
}): boolean {
  const { method, path, res } = opts;
  if (method === "GET" && path === "/_sandbox/stats") {
    const text = JSON.stringify(opts.stats());
    res.writeHead(200, { "content-type": "application/json;charset=UTF-8" }).end(text);
    return true;
  }
  if (method === "POST" && path === "/_sandbox/reset") {
    res.req.resume();
    opts.reset();
    res.writeHead(204).end();
    return true;
  }
  return false;
}
