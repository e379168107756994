import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createFaultInjector, parseFaultSpec } from "../../server-kit/faults.js";
import { startHttpServer } from "../../server-kit/http.js";
import { createRouter } from "../../server-kit/router.js";
import { createStats, type ServerStats } from "../../server-kit/stats.js";
import { handleRequest, type App } from "./app.js";
import { createWebhookSender, type GithubWebhookOptions } from "./webhooks.js";
import { createClock } from "./clock.js";
import type { RouteDef } from "./context.js";
import { errorBody } from "./errors.js";
import { createImportApi } from "./import-api.js";
import { createLimits } from "./limits.js";
import { createReadCache } from "./read-cache.js";
import { parseRateLimitSpec } from "./rate-limit.js";
import { commentRoutes } from "./routes-comments.js";
import { issueRoutes } from "./routes-issues.js";
import { eventRoutes } from "./routes-events.js";
import { labelRoutes } from "./routes-labels.js";
import { metaRoutes } from "./routes-meta.js";
import { milestoneRoutes } from "./routes-milestones.js";
import { searchRoutes } from "./routes-search.js";
import { subIssueRoutes } from "./routes-sub-issues.js";
import { createStore, removeIssue } from "./store.js";
import { createGraphqlBudget } from "./graphql/budget.js";
import { serveGraphql } from "./graphql/endpoint.js";
import { createProjectsStore } from "./graphql/projects-store.js";
import { sandboxUsers, type GithubSandboxUser } from "./users.js";
import { DEFAULT_SCOPES, type TokenScopes } from "./access.js";

export type { GithubSandboxUser } from "./users.js";

export { parseRateLimitSpec } from "./rate-limit.js";

/** Options of the GitHub sandbox (agreed with the GitHub adapter). */
export interface GithubSandboxOptions {
  /** Deliver a webhook for every change made through the API (docs/sandboxes.md). */
  webhook?: GithubWebhookOptions;
  /** @default "127.0.0.1" */
  host?: string;
  /** @default 0 (a free port) */
  port?: number;
  /** The admin token. @default a random `ghp_` + 36 alphanumerics */
  token?: string;
  /**
   * `off`, `real` (GitHub's published limits) or a SPEC such as
   * `core=5000/h,creates=80/min,creates=500/h,search=30/min` (see rate-limit.ts).
   * @default "off"
   */
  rateLimits?: "off" | "real" | (string & {});
  /** Run limits and the clock N times faster. @default 1 */
  timeScale?: number;
  /** Fault rules in the grammar of src/server-kit/faults.ts (including `403-secondary`). */
  faults?: string;
  /** Seed of the fault decisions. @default 1 */
  seed?: number;
  /** @default "acme" */
  owner?: string;
  /** @default "widgets" */
  repo?: string;
  /**
   * The users: logins (collaborators, assignable, no public email) or entries with a display
   * name, a public email and `collaborator: false` for users who cannot be assigned. The first
   * one owns the admin token. @default alice, bob, carol, dave, erin, frank
   */
  users?: readonly (string | GithubSandboxUser)[];
  /**
   * `eventual`: listings (`GET …/issues`, `/search/issues`) show an issue as it was before a
   * write for `consistencyLagMs` of sandbox time after it (a new issue not at all), as GitHub's
   * listings and search index lag behind writes. @default "strong"
   */
  consistency?: "strong" | "eventual";
  /** How long listings lag in `eventual` mode (sandbox ms). @default 1000 */
  consistencyLagMs?: number;
  /** The real-time source (epoch ms); tests pass a frozen clock to make same-second writes. */
  now?: () => number;
  /**
   * GraphQL's hourly point budget, enforced (default 5,000, enforced only when `rateLimits` is
   * not `off`); the secondary 2,000 points a minute applies with it.
   */
  graphqlPointsPerHour?: number;
  /**
   * The admin token's kind: a classic token's scopes (sent in `X-OAuth-Scopes`; Projects (v2)
   * reads need `read:project`, writes `project`, else GraphQL answers INSUFFICIENT_SCOPES), or
   * `fine-grained` (no scopes header; a user's projects are out of its reach).
   * @default ["project", "read:org", "repo"]
   */
  tokenScopes?: TokenScopes;
}

/** `GET /_sandbox/stats`. */
export type SandboxStats = ServerStats;

export interface GithubSandbox {
  /** Resolves once every webhook delivery queued so far was sent (or gave up). */
  drainWebhooks(): Promise<void>;
  /** Origin, e.g. `http://127.0.0.1:41234`; the REST API is at the root like api.github.com. */
  readonly url: string;
  /** Admin on owner/repo (the import API needs admin). */
  readonly token: string;
  /** Read-only token: writes answer 403 "Resource not accessible by personal access token". */
  readonly readToken: string;
  /**
   * A collaborator's token with push access but no admin rights (the second user's, else the
   * admin's login): writes issues, but the import API answers 404 and `deleteIssue` FORBIDDEN.
   */
  readonly writeToken: string;
  readonly owner: string;
  readonly repo: string;
  stats(): SandboxStats;
  /** Empties the repository again (default labels only) and clears stats and limits. */
  reset(): void;
  setFaults(spec: string): void;
  close(): Promise<void>;
}

export const DEFAULT_USERS: readonly string[] = ["alice", "bob", "carol", "dave", "erin", "frank"];
const READER = "octo-reader";

/** A GitHub personal access token shape: `ghp_` + 36 alphanumerics. */
function randomGithubToken(): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = randomBytes(36);
  return `ghp_${Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("")}`;
}

/** Starts a GitHub-compatible server on 127.0.0.1 (see docs/sandboxes.md). */
export async function startGithubSandbox(
  options: GithubSandboxOptions = {},
): Promise<GithubSandbox> {
  const users = sandboxUsers(options.users ?? DEFAULT_USERS);
  const admin = users[0]?.login;
  if (admin === undefined) throw new Error("the GitHub sandbox needs at least one user");
  const clock = createClock(options.timeScale ?? 1, options.now);
  const stats = createStats();
  const faults = createFaultInjector(parseFaultSpec(options.faults ?? ""), options.seed ?? 1);
  const limits = createLimits(parseRateLimitSpec(options.rateLimits ?? "off"), clock, stats);
  const store = createStore({
    owner: options.owner ?? "acme",
    repo: options.repo ?? "widgets",
    users,
    readerLogin: READER,
    clock,
    listingLagMs: options.consistency === "eventual" ? (options.consistencyLagMs ?? 1000) : 0,
  });
  const token = options.token ?? randomGithubToken();
  const readToken = randomGithubToken();
  const writeToken = randomGithubToken();
  const importApi = createImportApi(store);
  const router = createRouter<RouteDef>();
  const routes: readonly RouteDef[] = [
    ...metaRoutes((withRate) => limits.overview(withRate)),
    ...eventRoutes,
    ...commentRoutes,
    ...subIssueRoutes,
    ...labelRoutes,
    ...issueRoutes,
    ...milestoneRoutes,
    ...searchRoutes,
    ...importApi.routes,
  ];
  for (const r of routes) router.add(r.method, r.pattern, r);
  const projects = createProjectsStore();
  const budget = createGraphqlBudget({
    pointsPerHour: options.graphqlPointsPerHour ?? 5000,
    pointsPerMinute: 2000,
    enforce: (options.rateLimits ?? "off") !== "off" || options.graphqlPointsPerHour !== undefined,
  });
  const reset = (): void => {
    projects.reset();
    budget.reset();
    importApi.reset();
    store.reset();
    stats.reset();
    limits.reset();
  };
  const webhooks =
    options.webhook === undefined ? undefined : createWebhookSender(store, options.webhook);
  const tokens = [
    {
      token,
      login: admin,
      access: "admin" as const,
      scopes: options.tokenScopes ?? DEFAULT_SCOPES,
    },
    { token: readToken, login: READER, access: "read" as const, scopes: DEFAULT_SCOPES },
    {
      token: writeToken,
      login: users[1]?.login ?? admin,
      access: "write" as const,
      scopes: DEFAULT_SCOPES,
    },
  ];
  const app: App = {
    graphql: (req, res) =>
      serveGraphql(
        {
          store,
          projects,
          budget,
          stats,
          tokens,
          ...(webhooks !== undefined && {
            onItemChange: (project, item, change, sender) => {
              webhooks.projectItem({ project, item, change, sender });
            },
          }),
        },
        req,
        res,
      ),
    webhooks,
    store,
    router,
    stats,
    faults,
    limits,
    cache: createReadCache(),
    tokens,
    control: (req, res, path) =>
      control(req, res, path, {
        stats: () => stats.snapshot(),
        reset,
        remove: (n, how) => removeIssue(store, n, how),
      }),
  };
  const server = await startHttpServer({
    host: options.host,
    port: options.port,
    handler: (req, res) => handleRequest(app, req, res),
    now: () => clock.now(),
    onError: (_error, res) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const text = JSON.stringify(errorBody(500, "Server Error"));
      res.writeHead(500, { "content-type": "application/json; charset=utf-8" }).end(text);
    },
  });
  store.origin = server.origin;
  return {
    url: server.origin,
    token,
    readToken,
    writeToken,
    owner: store.owner.login,
    repo: store.repoName,
    stats: () => stats.snapshot(),
    reset,
    setFaults: (spec) => {
      faults.setRules(parseFaultSpec(spec));
    },
    drainWebhooks: () => webhooks?.drain() ?? Promise.resolve(),
    close: async () => {
      importApi.reset();
      webhooks?.close();
      await server.close();
    },
  };
}

/**
 * `GET /_sandbox/stats`, `POST /_sandbox/reset` and `POST /_sandbox/issues/{n}/delete|transfer`,
 * outside the API and without auth.
 */
function control(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  ops: {
    stats: () => SandboxStats;
    reset: () => void;
    remove: (number: number, how: "deleted" | "transferred") => boolean;
  },
): boolean {
  const send = (status: number, body: unknown): void => {
    res
      .writeHead(status, { "content-type": "application/json; charset=utf-8" })
      .end(JSON.stringify(body));
  };
  if (path === "/_sandbox/stats" && req.method === "GET") {
    send(200, ops.stats());
    return true;
  }
  if (path === "/_sandbox/reset" && req.method === "POST") {
    ops.reset();
    send(200, { reset: true });
    return true;
  }
  // A person deleting an issue (GitHub answers 410 for it after), or transferring it to a
  // repository the token cannot see (404): what the UI or GraphQL does, outside the REST API.
  const removal = /^\/_sandbox\/issues\/(\d+)\/(delete|transfer)$/.exec(path);
  if (removal !== null && req.method === "POST") {
    const number = Number(removal[1]);
    const how = removal[2] === "delete" ? "deleted" : "transferred";
    if (ops.remove(number, how)) send(200, { number, [how]: true });
    else send(404, { message: `no issue #${String(number)}` });
    return true;
  }
  return false;
}
