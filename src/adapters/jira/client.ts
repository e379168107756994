import http from "node:http";
import https from "node:https";
import { AgileClient, Version3Client } from "jira.js";
import type { z } from "zod";
import {
  AuthError,
  NotFoundError,
  PayloadInvalidError,
  PermissionError,
  RateLimitError,
  RemoteUnavailableError,
  SyncError,
  type RemoteContext,
} from "../../core/errors.js";
import type { ApiCallCounts } from "../../core/tracker.js";

/** A pino-compatible logger; only `debug` is used (one line per call). */
export interface JiraLogger {
  debug(obj: Record<string, unknown>, msg: string): void;
}

export interface JiraClientOptions {
  readonly baseUrl: string;
  readonly email: string;
  readonly token: string;
  /** Names of the environment variables the credentials came from (for error hints). */
  readonly emailEnv?: string | undefined;
  readonly tokenEnv?: string | undefined;
  readonly timeoutMs?: number | undefined;
  readonly logger?: JiraLogger | undefined;
  /** Paces calls per endpoint and method (Jira's burst buckets); `reserve` answers the wait. */
  readonly endpointPacer?: { reserve(key: string): number } | undefined;
  readonly sleep?: ((ms: number) => Promise<void>) | undefined;
}

export interface ErrorContext {
  readonly system: "jira";
  readonly operation: string;
  readonly id?: string | undefined;
}

/** The two jira.js clients, seen only inside this file and the calls it makes. */
export interface JiraApis {
  readonly v3: Version3Client;
  readonly agile: AgileClient;
}

export interface CallSpec<T> {
  /** e.g. `POST /rest/api/3/issue/bulk` (errors, logs). */
  readonly operation: string;
  /** Counted per kind for benchmarks, e.g. `issue.bulkCreate`. */
  readonly kind: string;
  readonly write: boolean;
  readonly id?: string | undefined;
  readonly call: (apis: JiraApis) => Promise<T>;
}

export interface JiraClient {
  readonly baseUrl: string;
  /** Makes one call; every failure is a typed SyncError. */
  send<T>(spec: CallSpec<T>): Promise<T>;
  /** Validates a payload; a mismatch is a PayloadInvalidError naming the endpoint and item. */
  parse<S extends z.ZodType>(
    schema: S,
    data: unknown,
    ctx: { operation: string; id?: string | undefined },
  ): z.infer<S>;
  counts(): ApiCallCounts;
  countsByKind(): Readonly<Record<string, number>>;
  close(): void;
}

export function createJiraClient(options: JiraClientOptions): JiraClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const agents = {
    httpAgent: new http.Agent({ keepAlive: true, maxSockets: 16 }),
    httpsAgent: new https.Agent({ keepAlive: true, maxSockets: 16 }),
  };
  const config = {
    host: baseUrl,
    authentication: { basic: { email: options.email, apiToken: options.token } },
    baseRequestConfig: { timeout: options.timeoutMs ?? 30_000, ...agents },
  };
  const apis: JiraApis = { v3: new Version3Client(config), agile: new AgileClient(config) };
  let reads = 0;
  let writes = 0;
  const byKind = new Map<string, number>();

  return {
    baseUrl,
    async send(spec) {
      if (spec.write) writes++;
      else reads++;
      byKind.set(spec.kind, (byKind.get(spec.kind) ?? 0) + 1);
      const wait = options.endpointPacer?.reserve(spec.operation) ?? 0;
      if (wait > 0 && options.sleep) await options.sleep(wait);
      const started = Date.now();
      try {
        const result = await spec.call(apis);
        options.logger?.debug(
          { system: "jira", op: spec.operation, id: spec.id, ms: Date.now() - started },
          "jira call",
        );
        return result;
      } catch (error) {
        const ctx: ErrorContext = { system: "jira", operation: spec.operation, id: spec.id };
        throw toSyncError(error, ctx, options);
      }
    },
    parse(schema, data, ctx) {
      const result = schema.safeParse(data);
      if (result.success) return result.data;
      const issue = result.error.issues[0];
      const where = issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "invalid";
      throw new PayloadInvalidError(
        `Jira answered ${ctx.operation}${ctx.id ? ` for ${ctx.id}` : ""} with an unexpected payload (${where}).`,
        { system: "jira", operation: ctx.operation, id: ctx.id },
        {
          hint: "Check that the base URL points at a Jira Cloud site (REST v3).",
          cause: result.error,
        },
      );
    },
    counts: () => ({ reads, writes, notModified: 0 }),
    countsByKind: () => Object.fromEntries(byKind),
    close() {
      agents.httpAgent.destroy();
      agents.httpsAgent.destroy();
    },
  };
}

interface HttpShape {
  readonly status: number;
  readonly data: unknown;
  readonly headers: Readonly<Record<string, unknown>>;
}

/** Reads status, body and headers from a jira.js HttpException or an axios error, by shape. */
function httpShape(error: unknown): HttpShape | undefined {
  if (!isRecord(error)) return undefined;
  const cause = isRecord(error.cause) ? error.cause : undefined;
  const response = isRecord(cause?.response)
    ? cause.response
    : isRecord(error.response)
      ? error.response
      : undefined;
  const status = typeof error.status === "number" ? error.status : response?.status;
  if (typeof status !== "number" || !response) return undefined;
  const headers = isRecord(response.headers) ? response.headers : {};
  return { status, data: response.data, headers };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function header(shape: HttpShape, name: string): string | undefined {
  const value = shape.headers[name] ?? shape.headers[name.toLowerCase()];
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined;
}

/** Jira's `{errorMessages, errors}` body, flattened for a message. */
export function jiraErrorText(data: unknown): string {
  if (!isRecord(data)) return typeof data === "string" ? data.slice(0, 300) : "";
  const messages = Array.isArray(data.errorMessages) ? data.errorMessages.map(String) : [];
  const fields = isRecord(data.errors)
    ? Object.entries(data.errors).map(([k, v]) => `${k}: ${String(v)}`)
    : [];
  return [...messages, ...fields].join("; ");
}

/** The wait a 429 (or 503) asks for: `Retry-After` seconds, else `X-RateLimit-Reset`. */
export function retryAfterMs(shape: HttpShape, now = Date.now()): number | undefined {
  const after = header(shape, "retry-after");
  if (after !== undefined && /^\d+(\.\d+)?$/.test(after.trim()))
    return Math.round(Number(after) * 1000);
  const reset = header(shape, "x-ratelimit-reset");
  const at = reset === undefined ? Number.NaN : Date.parse(reset);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ECONNABORTED",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ERR_NETWORK",
  "ERR_SOCKET_CONNECTION_TIMEOUT",
]);

/**
 * Turns whatever jira.js threw into a core error. The cause kept is a plain summary: jira.js
 * errors carry the axios request config, whose Authorization header holds the token.
 */
export function toSyncError(
  error: unknown,
  ctx: ErrorContext,
  env: { emailEnv?: string | undefined; tokenEnv?: string | undefined } = {},
): SyncError {
  if (error instanceof SyncError) return error;
  const shape = httpShape(error);
  const on = `${ctx.operation}${ctx.id ? ` (${ctx.id})` : ""}`;
  if (!shape) {
    const code = isRecord(error) && typeof error.code === "string" ? error.code : undefined;
    const message = error instanceof Error ? error.message : String(error);
    const transient = code === undefined || NETWORK_CODES.has(code);
    return new RemoteUnavailableError(
      `Jira could not be reached for ${on} (${code ?? message}).`,
      ctx,
      {
        transient,
        hint: "Check the Jira base URL and the network, then run `tinypm-sync check`.",
        cause: new Error(message),
      },
    );
  }
  const remote: RemoteContext = { ...ctx, status: shape.status };
  const text = jiraErrorText(shape.data);
  const evidence = text ? `: ${text}` : "";
  const cause = new Error(`HTTP ${shape.status}${evidence}`);
  const details = { jiraErrors: isRecord(shape.data) ? shape.data.errors : undefined };
  const status = shape.status;
  if (status === 401) {
    const vars =
      [env.emailEnv, env.tokenEnv].filter(Boolean).join(" and ") ||
      "the configured email and API token";
    return new AuthError(`Jira rejected the credentials in ${vars} (401) for ${on}.`, remote, {
      hint: `Create an API token at id.atlassian.com, export ${vars}, then run \`tinypm-sync check\`.`,
      cause,
    });
  }
  if (status === 403) {
    return new PermissionError(`Jira refused ${on} (403)${evidence}.`, remote, {
      hint: "Give the account the project permission the operation needs (browse, create, edit, transition).",
      cause,
    });
  }
  if (status === 404) {
    return new NotFoundError(
      `Jira has no ${ctx.id ?? "resource"} for ${ctx.operation} (404)${evidence}.`,
      remote,
      { cause },
    );
  }
  if (status === 429) return rateLimited(shape, remote, on, cause);
  if (status >= 500) {
    return new RemoteUnavailableError(`Jira failed ${on} (${status})${evidence}.`, remote, {
      transient: true,
      cause,
      details: { retryAfterMs: retryAfterMs(shape) },
    });
  }
  return new PayloadInvalidError(`Jira rejected ${on} (${status})${evidence}.`, remote, {
    hint: "Check the field values against the project's create/edit screens.",
    cause,
    details,
  });
}

function rateLimited(
  shape: HttpShape,
  ctx: RemoteContext,
  on: string,
  cause: Error,
): RateLimitError {
  const reason = header(shape, "ratelimit-reason");
  const wait = retryAfterMs(shape) ?? 1_000;
  const limit = reason === undefined || reason.includes("quota") ? "primary" : "burst";
  return new RateLimitError(
    `Jira rate-limited ${on} (429${reason ? `, ${reason}` : ""}); retry in ${wait} ms.`,
    ctx,
    {
      retryAfterMs: wait,
      limit,
      cause,
      details: { rateLimitReason: reason, retryAfterMs: wait },
    },
  );
}

/** A created-issues answer: Jira answers 400 with the same body when every element failed. */
function bulkBody(error: unknown): unknown {
  const shape = httpShape(error);
  if (shape?.status === 400 && isRecord(shape.data) && Array.isArray(shape.data.errors))
    return shape.data;
  throw error;
}

export interface SearchRequest {
  readonly jql: string;
  readonly fields: readonly string[];
  readonly properties?: readonly string[] | undefined;
  readonly nextPageToken?: string | undefined;
  readonly maxResults?: number | undefined;
  readonly reconcileIssues?: readonly number[] | undefined;
}

export interface IssueWrite {
  readonly fields?: Record<string, unknown> | undefined;
  readonly update?: Record<string, unknown> | undefined;
  readonly properties?: readonly { key: string; value: unknown }[] | undefined;
}

function toUpdateDetails(u: IssueWrite) {
  return {
    ...(u.fields && { fields: u.fields }),
    ...(u.update && { update: u.update }),
    ...(u.properties && { properties: u.properties.map((p) => ({ key: p.key, value: p.value })) }),
  };
}

/** Every Jira endpoint the adapter uses; each answers the raw (unvalidated) payload. */
export function createJiraEndpoints(client: JiraClient) {
  const send = client.send.bind(client);
  return {
    search: (r: SearchRequest) =>
      send({
        operation: "POST /rest/api/3/search/jql",
        kind: "issue.search",
        write: false,
        call: ({ v3 }) =>
          v3.issueSearch.searchForIssuesUsingJqlEnhancedSearchPost<unknown>({
            jql: r.jql,
            fields: [...r.fields],
            ...(r.properties && { properties: [...r.properties] }),
            ...(r.nextPageToken !== undefined && { nextPageToken: r.nextPageToken }),
            ...(r.maxResults !== undefined && { maxResults: r.maxResults }),
            ...(r.reconcileIssues && { reconcileIssues: [...r.reconcileIssues] }),
          }),
      }),
    getIssue: (key: string, fields: readonly string[], properties: readonly string[]) =>
      send({
        operation: "GET /rest/api/3/issue/{key}",
        kind: "issue.get",
        write: false,
        id: key,
        call: ({ v3 }) =>
          v3.issues.getIssue<unknown>({
            issueIdOrKey: key,
            fields: [...fields],
            properties: [...properties],
          }),
      }),
    createIssues: (issueUpdates: readonly IssueWrite[]) =>
      send({
        operation: "POST /rest/api/3/issue/bulk",
        kind: "issue.bulkCreate",
        write: true,
        call: ({ v3 }) =>
          v3.issues
            .createIssues<unknown>({
              issueUpdates: issueUpdates.map(toUpdateDetails),
            })
            .catch(bulkBody),
      }),
    editIssue: (key: string, body: IssueWrite) =>
      send({
        operation: "PUT /rest/api/3/issue/{key}",
        kind: "issue.edit",
        write: true,
        id: key,
        call: ({ v3 }) =>
          v3.issues.editIssue<unknown>({
            issueIdOrKey: key,
            fields: body.fields,
            update: body.update,
          }),
      }),
    deleteIssue: (key: string) =>
      send({
        operation: "DELETE /rest/api/3/issue/{key}",
        kind: "issue.delete",
        write: true,
        id: key,
        call: ({ v3 }) =>
          v3.issues.deleteIssue<unknown>({ issueIdOrKey: key, deleteSubtasks: true }),
      }),
    getTransitions: (key: string) =>
      send({
        operation: "GET /rest/api/3/issue/{key}/transitions",
        kind: "transition.list",
        write: false,
        id: key,
        call: ({ v3 }) =>
          v3.issues.getTransitions<unknown>({ issueIdOrKey: key, expand: "transitions.fields" }),
      }),
    doTransition: (
      key: string,
      transitionId: string,
      fields: Record<string, unknown> | undefined,
    ) =>
      send({
        operation: "POST /rest/api/3/issue/{key}/transitions",
        kind: "transition.do",
        write: true,
        id: key,
        call: ({ v3 }) =>
          v3.issues.doTransition<unknown>({
            issueIdOrKey: key,
            transition: { id: transitionId },
            ...(fields && { fields }),
          }),
      }),
    getComments: (key: string, startAt: number) =>
      send({
        operation: "GET /rest/api/3/issue/{key}/comment",
        kind: "comment.list",
        write: false,
        id: key,
        call: ({ v3 }) =>
          v3.issueComments.getComments<unknown>({
            issueIdOrKey: key,
            startAt,
            maxResults: 100,
            orderBy: "created",
          }),
      }),
    addComment: (key: string, body: unknown) =>
      send({
        operation: "POST /rest/api/3/issue/{key}/comment",
        kind: "comment.create",
        write: true,
        id: key,
        call: ({ v3 }) =>
          v3.issueComments.addComment<unknown>({ issueIdOrKey: key, comment: body as never }),
      }),
    getWorklogs: (key: string, startAt: number) =>
      send({
        operation: "GET /rest/api/3/issue/{key}/worklog",
        kind: "worklog.list",
        write: false,
        id: key,
        call: ({ v3 }) =>
          v3.issueWorklogs.getIssueWorklog<unknown>({
            issueIdOrKey: key,
            startAt,
            maxResults: 5000,
          }),
      }),
    addWorklog: (
      key: string,
      w: { started: string; timeSpentSeconds: number; comment?: unknown },
    ) =>
      send({
        operation: "POST /rest/api/3/issue/{key}/worklog",
        kind: "worklog.create",
        write: true,
        id: key,
        call: ({ v3 }) =>
          v3.issueWorklogs.addWorklog<unknown>({
            issueIdOrKey: key,
            started: w.started,
            timeSpentSeconds: w.timeSpentSeconds,
            adjustEstimate: "leave",
            ...(w.comment !== undefined && { comment: w.comment as never }),
          }),
      }),
    setProperty: (key: string, propertyKey: string, value: unknown) =>
      send({
        operation: "PUT /rest/api/3/issue/{key}/properties/{propertyKey}",
        kind: "property.set",
        write: true,
        id: key,
        call: ({ v3 }) =>
          v3.issueProperties.setIssueProperty({
            issueIdOrKey: key,
            propertyKey,
            propertyValue: value,
          }),
      }),
    priorities: () =>
      send({
        operation: "GET /rest/api/3/priority",
        kind: "meta.priorities",
        write: false,
        call: ({ v3 }) => v3.issuePriorities.getPriorities<unknown>(),
      }),
    fields: () =>
      send({
        operation: "GET /rest/api/3/field",
        kind: "meta.fields",
        write: false,
        call: ({ v3 }) => v3.issueFields.getFields<unknown>(),
      }),
    project: (key: string) =>
      send({
        operation: "GET /rest/api/3/project/{key}",
        kind: "meta.project",
        write: false,
        id: key,
        call: ({ v3 }) => v3.projects.getProject<unknown>({ projectIdOrKey: key }),
      }),
    assignableUsers: (projectKey: string, startAt: number) =>
      send({
        operation: "GET /rest/api/3/user/assignable/search",
        kind: "meta.users",
        write: false,
        call: ({ v3 }) =>
          v3.userSearch.findAssignableUsers<unknown>({
            project: projectKey,
            startAt,
            maxResults: 1000,
          }),
      }),
    boards: (projectKey: string) =>
      send({
        operation: "GET /rest/agile/1.0/board",
        kind: "agile.boards",
        write: false,
        call: ({ agile }) =>
          agile.board.getAllBoards<unknown>({ projectKeyOrId: projectKey, type: "scrum" }),
      }),
    boardConfiguration: (boardId: number) =>
      send({
        operation: "GET /rest/agile/1.0/board/{id}/configuration",
        kind: "agile.boardConfig",
        write: false,
        id: String(boardId),
        call: ({ agile }) => agile.board.getConfiguration<unknown>({ boardId }),
      }),
    sprints: (boardId: number, startAt: number) =>
      send({
        operation: "GET /rest/agile/1.0/board/{id}/sprint",
        kind: "agile.sprints",
        write: false,
        id: String(boardId),
        call: ({ agile }) =>
          agile.board.getAllSprints<unknown>({ boardId, startAt, maxResults: 50 }),
      }),
    createSprint: (s: {
      name: string;
      originBoardId: number;
      startDate?: string | undefined;
      endDate?: string | undefined;
      goal?: string | undefined;
    }) =>
      send({
        operation: "POST /rest/agile/1.0/sprint",
        kind: "sprint.create",
        write: true,
        call: ({ agile }) =>
          agile.sprint.createSprint<unknown>({
            name: s.name,
            originBoardId: s.originBoardId,
            ...(s.startDate !== undefined && { startDate: s.startDate }),
            ...(s.endDate !== undefined && { endDate: s.endDate }),
            ...(s.goal !== undefined && { goal: s.goal }),
          }),
      }),
    moveToSprint: (sprintId: number, keys: readonly string[]) =>
      send({
        operation: "POST /rest/agile/1.0/sprint/{id}/issue",
        kind: "sprint.move",
        write: true,
        id: String(sprintId),
        call: ({ agile }) =>
          agile.sprint.moveIssuesToSprintAndRank<unknown>({ sprintId, issues: [...keys] }),
      }),
    moveToBacklog: (keys: readonly string[]) =>
      send({
        operation: "POST /rest/agile/1.0/backlog/issue",
        kind: "sprint.move",
        write: true,
        call: ({ agile }) => agile.backlog.moveIssuesToBacklog<unknown>({ issues: [...keys] }),
      }),
    statuses: () =>
      send({
        operation: "GET /rest/api/3/status",
        kind: "meta.statuses",
        write: false,
        call: ({ v3 }) => v3.workflowStatuses.getStatuses<unknown>(),
      }),
    myself: () =>
      send({
        operation: "GET /rest/api/3/myself",
        kind: "meta.myself",
        write: false,
        call: ({ v3 }) => v3.myself.getCurrentUser<unknown>(),
      }),
  };
}

export type JiraEndpoints = ReturnType<typeof createJiraEndpoints>;
