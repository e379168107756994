import type { IncomingMessage, ServerResponse } from "node:http";
import { SyncError } from "../core/errors.js";
import type { Logger } from "../log/logger.js";
import { renderHtml } from "../report/html.js";
import {
  BodyTooLargeError,
  readBody,
  startHttpServer,
  type RunningServer,
} from "../server-kit/http.js";
import { createRouter, type Params } from "../server-kit/router.js";
import { toReport } from "../sync/report-data.js";
import { conflictItems } from "./item-pages.js";
import {
  conflictApi,
  conflictsApi,
  finishedRunOf,
  jobsApi,
  runsApi,
  workersApi,
} from "./api-routes.js";
import { SESSION_COOKIE, type Access } from "./auth.js";
import {
  DASHBOARD_CSS,
  renderDashboard,
  renderLogin,
  renderRunGone,
  withBackLink,
} from "./dashboard.js";
import { redirect, sendHtml, sendJson, sendText } from "./respond.js";
import type { Service } from "./service.js";
import { createGithubWebhooks, type DeliveryVerdict } from "./webhook-github.js";
import { createJiraWebhooks } from "./webhook-jira.js";
import type { JiraIssueLocator } from "./webhook-jira-worklog.js";
import { createWebhookIntake, type WebhookIntake } from "./webhook-intake.js";

/** GitHub caps a delivery's payload at 25 MB. */
const WEBHOOK_BODY_LIMIT = 25 * 1024 * 1024;
const FORM_BODY_LIMIT = 64 * 1024;

type Route = (
  req: IncomingMessage,
  res: ServerResponse,
  params: Params,
  url: URL,
) => Promise<void> | void;
/** Who may call a route: anyone (health), a signed webhook, or someone the access check lets in. */
interface RouteDef {
  readonly open: boolean;
  readonly handle: Route;
}

export interface ServeServerOptions {
  readonly host: string;
  readonly port: number;
  readonly service: Service;
  readonly access: Access;
  readonly logger: Logger;
  /** Finds a Jira issue by id (worklog deliveries name no key); none: they go by id to every job. */
  readonly locateJiraIssue?: JiraIssueLocator | undefined;
  /** Quiet time before webhook deliveries become a run. @default 1000 */
  readonly debounceMs?: number;
}

export interface ServeServer extends RunningServer {
  readonly intake: WebhookIntake;
}

/** Starts the service's HTTP server: health, metrics, webhooks, dashboard and /api. */
export async function startServeServer(o: ServeServerOptions): Promise<ServeServer> {
  const { service, access, logger } = o;
  const github = createGithubWebhooks(service.jobs);
  const jira = createJiraWebhooks(service.jobs, o.locateJiraIssue);
  const intake = createWebhookIntake({
    debounceMs: o.debounceMs ?? 1000,
    fire: (job, items) => {
      service.trigger(job, "webhook", items);
    },
  });
  const router = createRouter<RouteDef>();
  const open = (handle: Route): RouteDef => ({ open: true, handle });
  const guarded = (handle: Route): RouteDef => ({ open: false, handle });

  const webhook =
    (
      source: "github" | "jira",
      judge: (d: {
        headers: IncomingMessage["headers"];
        body: string;
      }) => Promise<DeliveryVerdict> | DeliveryVerdict,
      enabled: boolean,
    ): Route =>
    async (req, res) => {
      if (!enabled) {
        service.metrics.delivery(source, "rejected");
        sendJson(res, 401, { message: `no ${source} target has a webhookSecretEnv` });
        return;
      }
      const body = (await readBody(req, WEBHOOK_BODY_LIMIT)).toString("utf8");
      const verdict = await judge({ headers: req.headers, body });
      let outcome = verdict.outcome;
      if (verdict.run !== undefined) {
        const r = verdict.run;
        if (intake.accept(source, r.deliveryId, r.jobs, r.items) === "duplicate")
          outcome = "duplicate";
        else if (r.items !== undefined)
          // An item named without a time (a deletion) is never taken for an echo.
          for (const job of r.jobs)
            service.noteDelivery(
              job,
              new Map([...r.items].map((item) => [item, r.stamps?.get(item) ?? ""])),
            );
      }
      service.metrics.delivery(source, outcome);
      logger.info(
        { source, outcome, status: verdict.status, jobs: verdict.run?.jobs },
        "webhook delivery",
      );
      sendJson(
        res,
        verdict.status,
        outcome === "duplicate" ? { message: "already received" } : verdict.body,
      );
    };

  router
    .add(
      "GET",
      "/healthz",
      open((_req, res) => {
        sendJson(res, 200, { status: "ok" });
      }),
    )
    .add(
      "GET",
      "/readyz",
      open((_req, res) => {
        const r = service.readiness.current();
        sendJson(
          res,
          r.ready ? 200 : 503,
          r.ready ? { status: "ready" } : { status: "not ready", reasons: r.reasons },
        );
      }),
    )
    .add(
      "POST",
      "/webhooks/github",
      open(webhook("github", (d) => github.judge(d), github.enabled)),
    )
    .add("POST", "/webhooks/jira", open(webhook("jira", (d) => jira.judge(d), jira.enabled)))
    .add(
      "GET",
      "/dashboard.css",
      open((_req, res) => {
        sendText(res, 200, DASHBOARD_CSS, "text/css; charset=utf-8");
      }),
    )
    .add(
      "GET",
      "/favicon.ico",
      open((_req, res) => {
        // Browsers ask for it on every page; there is none (and a 404 would be logged as an error).
        res.writeHead(204, { "cache-control": "max-age=86400" }).end();
      }),
    )
    .add(
      "GET",
      "/login",
      open((_req, res) => {
        sendHtml(res, 200, renderLogin(false));
      }),
    )
    .add(
      "POST",
      "/login",
      open(async (req, res) => {
        const form = await readForm(req);
        const session = access.login(form.get("token") ?? undefined);
        if (session === undefined) {
          logger.warn("dashboard login refused");
          sendHtml(res, 401, renderLogin(true));
          return;
        }
        redirect(res, "/", {
          "set-cookie": `${SESSION_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/`,
        });
      }),
    )
    .add(
      "POST",
      "/logout",
      guarded(async (req, res) => {
        const form = await readForm(req);
        if (!access.csrfValid(req, form.get("csrf") ?? undefined)) {
          forbidden(res);
          return;
        }
        access.logout(req);
        redirect(res, "/login", { "set-cookie": `${SESSION_COOKIE}=; Max-Age=0; Path=/` });
      }),
    )
    .add(
      "GET",
      "/metrics",
      guarded(async (_req, res) => {
        sendText(res, 200, await service.metrics.render(), service.metrics.registry.contentType);
      }),
    )
    .add(
      "GET",
      "/",
      guarded(async (req, res, _p, url) => {
        const data = await service.readState(async (state) => ({
          jobs: await jobsApi(service, state),
          runs: await runsApi(service, state),
          conflicts: await conflictsApi(state),
          workers: await workersApi(service, state),
          conflictItems: await conflictItems(
            state,
            service.jobs,
            await state.conflicts({ status: "open" }),
          ),
        }));
        const runErrors = new Map<string, string>();
        for (const r of data.runs) {
          const error = finishedRunOf(service, r)?.error;
          if (error !== undefined) runErrors.set(r.id, error);
        }
        sendHtml(
          res,
          200,
          renderDashboard(
            { ...data, runErrors },
            {
              csrf: access.csrfToken(req),
              session: access.required && req.headers.authorization === undefined,
              flash: flashText(url),
            },
          ),
        );
      }),
    )
    .add(
      "GET",
      "/runs/:id",
      guarded((_req, res, params) => {
        const run = service.findRun(params.id ?? "");
        if (run?.report === undefined) {
          sendHtml(res, 404, renderRunGone(params.id ?? ""));
          return;
        }
        // The report carries its own Content-Security-Policy (inline style and script by hash).
        sendText(
          res,
          200,
          withBackLink(renderHtml(toReport(run.report)), run.job),
          "text/html; charset=utf-8",
          {
            "content-security-policy": "frame-ancestors 'none'",
          },
        );
      }),
    )
    .add(
      "POST",
      "/jobs/:name/sync",
      guarded(async (req, res, params) => {
        const form = await readForm(req);
        if (!access.csrfValid(req, form.get("csrf") ?? undefined)) {
          forbidden(res);
          return;
        }
        const name = params.name ?? "";
        if (!service.trigger(name, "manual")) {
          notFound(res, `no job named ${name}`);
          return;
        }
        redirect(res, `/?flash=sync&job=${encodeURIComponent(name)}`);
      }),
    )
    .add(
      "POST",
      "/conflicts/:id/resolve",
      guarded(async (req, res, params) => {
        const form = await readForm(req);
        if (!access.csrfValid(req, form.get("csrf") ?? undefined)) {
          forbidden(res);
          return;
        }
        const take = form.get("take");
        const id = Number(params.id);
        if ((take !== "tinypm" && take !== "target") || !Number.isInteger(id)) {
          sendJson(res, 400, { message: "take must be tinypm or target" });
          return;
        }
        const resolved = await resolve(res, id, take, form.get("reopen") === "true");
        if (resolved !== undefined)
          redirect(res, `/?flash=resolved&conflict=${id}&take=${take}#conflicts`);
      }),
    )
    .add(
      "GET",
      "/api/jobs",
      guarded(async (_req, res) => {
        sendJson(res, 200, { jobs: await service.readState((s) => jobsApi(service, s)) });
      }),
    )
    .add(
      "GET",
      "/api/runs",
      guarded(async (_req, res, _p, url) => {
        const job = url.searchParams.get("job") ?? undefined;
        sendJson(res, 200, { runs: await service.readState((s) => runsApi(service, s, job)) });
      }),
    )
    .add(
      "GET",
      "/api/conflicts",
      guarded(async (_req, res) => {
        sendJson(res, 200, { conflicts: await service.readState((s) => conflictsApi(s)) });
      }),
    )
    .add(
      "GET",
      "/api/workers",
      guarded(async (_req, res) => {
        sendJson(res, 200, { workers: await service.readState((s) => workersApi(service, s)) });
      }),
    )
    .add(
      "POST",
      "/api/jobs/:name/sync",
      guarded((req, res, params) => {
        if (!isJson(req)) {
          unsupported(res);
          return;
        }
        const name = params.name ?? "";
        if (!service.trigger(name, "manual")) {
          notFound(res, `no job named ${name}`);
          return;
        }
        sendJson(res, 202, { message: "run asked for", job: name });
      }),
    )
    .add(
      "POST",
      "/api/conflicts/:id",
      guarded(async (req, res, params) => {
        if (!isJson(req)) {
          unsupported(res);
          return;
        }
        let body: { take?: unknown; reopen?: unknown } = {};
        try {
          body = JSON.parse((await readBody(req, FORM_BODY_LIMIT)).toString("utf8")) as {
            take?: unknown;
            reopen?: unknown;
          };
        } catch {
          body = {};
        }
        const { take, reopen } = body;
        const id = Number(params.id);
        if (
          (take !== "tinypm" && take !== "target") ||
          !Number.isInteger(id) ||
          (reopen !== undefined && typeof reopen !== "boolean")
        ) {
          sendJson(res, 400, {
            message:
              'send {"take":"tinypm"} or {"take":"target"}, and "reopen": true to change a decision',
          });
          return;
        }
        const resolved = await resolve(res, id, take, reopen === true);
        if (resolved !== undefined)
          sendJson(res, 200, { conflict: conflictApi(resolved), status: "resolved" });
      }),
    );

  const resolve = async (
    res: ServerResponse,
    id: number,
    take: "tinypm" | "target",
    reopen: boolean,
  ) => {
    try {
      const c = await service.resolveConflict(id, take, reopen);
      logger.info(
        { conflict: id, take, reopen, job: c.job },
        "conflict resolved from the dashboard",
      );
      return c;
    } catch (error) {
      if (error instanceof SyncError && error.code === "usage") {
        notFound(res, error.message);
        return undefined;
      }
      // Resolved already with the other side: a change of mind must say so (`reopen`).
      if (error instanceof SyncError && error.code === "conflict_resolved") {
        sendJson(res, 409, {
          code: error.code,
          message: error.message,
          hint: error.hint ?? null,
          ...error.details,
        });
        return undefined;
      }
      throw error;
    }
  };

  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://service.invalid");
    const match = router.match(req.method ?? "GET", url.pathname);
    if (match.kind === "not-found") {
      notFound(res, `no route ${url.pathname}`);
      return;
    }
    if (match.kind === "method-not-allowed") {
      sendJson(res, 405, { message: "method not allowed" }, { allow: match.allowed.join(", ") });
      return;
    }
    const def = match.handler;
    if (!def.open && !access.allowed(req)) {
      if (url.pathname.startsWith("/api/") || url.pathname === "/metrics" || req.method !== "GET")
        sendJson(
          res,
          401,
          { message: "a bearer token or a login is needed" },
          { "www-authenticate": "Bearer" },
        );
      else redirect(res, "/login");
      return;
    }
    if (req.method === "POST" && !def.open && !sameOrigin(req)) {
      forbidden(res);
      return;
    }
    await def.handle(req, res, match.params, url);
  };
  const server = await startHttpServer({
    host: o.host,
    port: o.port,
    handler,
    onError: (error, res) => {
      if (error instanceof BodyTooLargeError) {
        if (!res.headersSent) sendJson(res, 413, { message: error.message });
        return;
      }
      logger.error(
        { err: error instanceof Error ? error.message : String(error) },
        "request failed",
      );
      if (!res.headersSent) sendJson(res, 500, { message: "internal error" });
      else res.destroy();
    },
  });
  return {
    ...server,
    intake,
    close: async () => {
      intake.close();
      await server.close();
    },
  };
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new URLSearchParams((await readBody(req, FORM_BODY_LIMIT)).toString("utf8"));
}

function isJson(req: IncomingMessage): boolean {
  return (req.headers["content-type"] ?? "").toLowerCase().startsWith("application/json");
}

/** A browser's form post from another site names that site in `Origin`. */
function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined || origin === "null") return origin === undefined;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

function forbidden(res: ServerResponse): void {
  sendJson(res, 403, { message: "the form is stale or from another site; reload the page" });
}

function notFound(res: ServerResponse, message: string): void {
  sendJson(res, 404, { message });
}

function unsupported(res: ServerResponse): void {
  sendJson(res, 415, { message: "send Content-Type: application/json" });
}

/** Fixed messages after a form post (never text taken from the query as is). */
function flashText(url: URL): string | undefined {
  const flash = url.searchParams.get("flash");
  if (flash === "sync") return `A run of job ${url.searchParams.get("job") ?? "?"} was asked for.`;
  if (flash === "resolved") {
    const take = url.searchParams.get("take") === "tinypm" ? "tinyPM" : "the target";
    return `Conflict #${url.searchParams.get("conflict") ?? "?"} resolved: ${take} wins. The job's next run applies it.`;
  }
  return undefined;
}
