import type { Logger } from "../../core/logger.js";
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AgileClient, Version3Client } from "jira.js";
import type { z } from "zod";
import { PayloadInvalidError } from "../../core/errors.js";
import { ungated, type RequestGate } from "../../core/request-gate.js";
import { createServerClock } from "../../core/server-clock.js";
import type { AdfNode } from "./adf.js";
import { dcOperationName, wikiBlockLost, type WikiSources } from "./dc-dialect.js";
import { installDcDialect } from "./dc-transport.js";
import { labelled, logHttpRequests } from "./http-log.js";
import { toSyncError, type ErrorContext } from "./errors.js";
import { watchServerDate } from "./server-date.js";

/** A pino-compatible logger; only `debug` is used (one line per call). */
interface JiraClientOptions {
  readonly baseUrl: string;
  readonly email: string;
  readonly token: string;
  /** Names of the environment variables the credentials came from (for error hints). */
  readonly emailEnv?: string | undefined;
  readonly tokenEnv?: string | undefined;
  readonly timeoutMs?: number | undefined;
  readonly logger?: Logger | undefined;
  /** Every request goes through it (limits, per-issue windows, retries, waits). @default ungated */
  readonly gate?: RequestGate | undefined;
  /**
   * `datacenter`: the token is a personal access token sent as Bearer, and every call speaks
   * Data Center's dialect (REST v2, wiki markup, users by name; dc-transport.ts). @default "cloud"
   */
  readonly deployment?: "cloud" | "datacenter" | undefined;
  /** PEM file of the CA that signed the site's certificate (self-signed Data Center sites). */
  readonly caFile?: string | undefined;
}

/** The two jira.js clients, seen only inside this file and the calls it makes. */
interface JiraApis {
  readonly v3: Version3Client;
  readonly agile: AgileClient;
}

interface CallSpec<T> {
  /** e.g. `POST /rest/api/3/issue/bulk` (errors, logs). */
  readonly operation: string;
  /** The operation the run's gate counts it under, e.g. `issue.bulkCreate`. */
  readonly kind: string;
  readonly write: boolean;
  readonly id?: string | undefined;
  readonly call: (apis: JiraApis) => Promise<T>;
}

/** A read and the write `build` makes from its answer (`JiraClient.readThenWrite`). */
export interface ReadThenWrite<R> {
  readonly read: CallSpec<R>;
  readonly write: Omit<CallSpec<unknown>, "call" | "write">;
  readonly build: (read: R) => Promise<CallSpec<unknown>["call"] | undefined>;
}

export interface JiraClient {
  readonly baseUrl: string;
  /**
   * Data Center: what rewriting a description block read as wiki from its Markdown loses beyond
   * ADF's own losses (dc-dialect.ts `wikiBlockLost`). Absent on Cloud.
   */
  readonly blockLost?: ((node: AdfNode, text: string) => readonly string[]) | undefined;
  /** Makes one call; every failure is a typed SyncError. */
  send<T>(spec: CallSpec<T>): Promise<T>;
  /**
   * A read and the write built from its answer as ONE write of the gate (the issue's keyed
   * window too): the read is made once the write's turn has come and the write follows at once.
   * Jira's writes take no If-Match; this leaves a person's save only the write's own transit to
   * be overwritten in. `build` answers the write's call, or `undefined` for none; throwing sends
   * nothing. A retry (a timeout, a 5xx) reads again. Answers what was read.
   */
  readThenWrite<R>(spec: ReadThenWrite<R>): Promise<R>;
  /** Validates a payload; a mismatch is a PayloadInvalidError naming the endpoint and item. */
  parse<S extends z.ZodType>(
    schema: S,
    data: unknown,
    ctx: { operation: string; id?: string | undefined },
  ): z.infer<S>;
  /** Now on the site's clock, as its answers' `Date` headers tell it (core/server-clock.ts). */
  serverNow(): Date | undefined;
  close(): void;
}

/** The CA file's PEM text; a missing or unreadable file names itself and the option. */
function readCa(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new Error(
      `cannot read the Jira CA file ${file} (targets.jira.caFile): ${(error as Error).message}`,
      { cause: error },
    );
  }
}

export function createJiraClient(options: JiraClientOptions): JiraClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const dc = options.deployment === "datacenter";
  const agents = {
    httpAgent: new http.Agent({ keepAlive: true, maxSockets: 16 }),
    httpsAgent: new https.Agent({
      keepAlive: true,
      maxSockets: 16,
      ...(options.caFile !== undefined && { ca: readCa(options.caFile) }),
    }),
  };
  const timeout = options.timeoutMs ?? 30_000;
  const config = dc
    ? {
        host: baseUrl,
        baseRequestConfig: {
          timeout,
          ...agents,
          headers: { Authorization: `Bearer ${options.token}` },
        },
      }
    : {
        host: baseUrl,
        authentication: { basic: { email: options.email, apiToken: options.token } },
        baseRequestConfig: { timeout, ...agents },
      };
  const serverClock = createServerClock();
  // Each block's wiki source, shared by both clients (dc-dialect.ts).
  const wikiSources: WikiSources = new Map();
  // The longest wait DC's token bucket asked for since the gate last read it.
  let hold: number | undefined;
  const onHold = (ms: number): void => {
    hold = Math.max(hold ?? 0, ms);
  };
  const takeHold = (): number | undefined => {
    const ms = hold;
    hold = undefined;
    return ms;
  };
  // jira.js (and its axios) is a third of the CLI's start-up: loaded on the first call, so
  // commands and runs that never talk to Jira do not pay for it.
  let apis: Promise<JiraApis> | undefined;
  const loadApis = async (): Promise<JiraApis> => {
    const { AgileClient, Version3Client } = await import("jira.js");
    const loaded: JiraApis = { v3: new Version3Client(config), agile: new AgileClient(config) };
    if (dc) {
      installDcDialect(loaded.v3, wikiSources, onHold);
      installDcDialect(loaded.agile, wikiSources, onHold);
    }
    logHttpRequests(loaded.v3, options.logger);
    logHttpRequests(loaded.agile, options.logger);
    watchServerDate(loaded.v3, serverClock);
    watchServerDate(loaded.agile, serverClock);
    return loaded;
  };
  const gate = options.gate ?? ungated;

  async function sendOnce<T>(spec: CallSpec<T>, ready: JiraApis): Promise<T> {
    const started = Date.now();
    try {
      const result = await labelled({ operation: spec.operation, id: spec.id }, () =>
        spec.call(ready),
      );
      options.logger?.debug(
        { operation: spec.operation, item: spec.id, ms: Date.now() - started },
        "jira call done",
      );
      return result;
    } catch (error) {
      const ctx: ErrorContext = { system: "jira", operation: spec.operation, id: spec.id };
      throw toSyncError(error, ctx, { ...options, baseUrl });
    }
  }

  return {
    baseUrl,
    ...(dc && {
      blockLost: (node: AdfNode, text: string) => wikiBlockLost(node, text, wikiSources),
    }),
    async send(asked) {
      // Named as the server serves it: logs, waits and errors of a Data Center run say
      // `/rest/api/2/…`, the path the requests take, not Cloud's `/rest/api/3/…`.
      const spec = dc ? { ...asked, operation: dcOperationName(asked.operation) } : asked;
      const method = spec.operation.split(" ")[0] ?? "";
      // Loaded before the gate admits the call, so its time counts against no request timeout.
      const ready = await (apis ??= loadApis());
      return gate.request({
        system: "jira",
        kind: spec.write ? "write" : spec.operation.includes("/search") ? "search" : "read",
        name: `${spec.operation}${spec.id === undefined ? "" : ` ${spec.id}`}`,
        operation: spec.kind,
        // Jira's per-issue write windows: every write to one issue counts against that issue.
        key: spec.write && spec.operation.includes("/issue/{") ? spec.id : undefined,
        // Reads (searches are POSTs too), PUTs and DELETEs repeat safely; a creating POST not.
        idempotent: !spec.write || method === "PUT" || method === "DELETE",
        // jira.js takes no signal per call: the gate stops waiting for it on abort or timeout.
        send: () => sendOnce(spec, ready),
        // Data Center's empty token bucket (X-RateLimit-*): later requests wait for a token.
        ...(dc && { holdMs: takeHold }),
      });
    },
    async readThenWrite(asked) {
      const read = dc
        ? { ...asked.read, operation: dcOperationName(asked.read.operation) }
        : asked.read;
      const write = dc
        ? { ...asked.write, operation: dcOperationName(asked.write.operation) }
        : asked.write;
      const ready = await (apis ??= loadApis());
      let wrote = false;
      return gate.request({
        system: "jira",
        kind: "write",
        name: `${write.operation}${write.id === undefined ? "" : ` ${write.id}`}`,
        operation: write.kind,
        key: write.id,
        // Each attempt reads again and builds its write from what it read.
        idempotent: true,
        readFirst: { operation: read.kind, wrote: () => wrote },
        send: async () => {
          wrote = false;
          const got = await sendOnce(read, ready);
          const call = await asked.build(got);
          if (call !== undefined) {
            wrote = true;
            await sendOnce({ ...write, write: true, call }, ready);
          }
          return got;
        },
        ...(dc && { holdMs: takeHold }),
      });
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
          hint: dc
            ? 'Check that the base URL points at a Jira Data Center site (REST v2), or set "deployment": "cloud" for Jira Cloud.'
            : 'Check that the base URL points at a Jira Cloud site (REST v3), or set "deployment": "datacenter" for Jira Data Center.',
          cause: result.error,
        },
      );
    },
    serverNow: () => serverClock.now(),
    close() {
      agents.httpAgent.destroy();
      agents.httpsAgent.destroy();
    },
  };
}

interface SearchRequest {
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

function getIssueCall(
  key: string,
  fields: readonly string[],
  properties: readonly string[],
): CallSpec<unknown> {
  return {
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
  };
}

function editIssueCall(key: string, body: IssueWrite): CallSpec<unknown> {
  return {
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
      send(getIssueCall(key, fields, properties)),
    /**
     * The issue read, then edited with the body `build` makes from it (none: no PUT), as one
     * write of the gate (`JiraClient.readThenWrite`).
     */
    getThenEditIssue: (
      key: string,
      read: { fields: readonly string[]; properties: readonly string[] },
      build: (raw: unknown) => Promise<IssueWrite | undefined>,
    ) => {
      const edit = editIssueCall(key, {});
      return client.readThenWrite<unknown>({
        read: getIssueCall(key, read.fields, read.properties),
        write: { operation: edit.operation, kind: edit.kind, id: key },
        build: async (raw) => {
          const body = await build(raw);
          return body === undefined ? undefined : editIssueCall(key, body).call;
        },
      });
    },
    editIssue: (key: string, body: IssueWrite) => send(editIssueCall(key, body)),
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
    createMetaTypes: (projectKey: string, startAt: number) =>
      send({
        operation: "GET /rest/api/3/issue/createmeta/{project}/issuetypes",
        kind: "meta.createTypes",
        write: false,
        call: ({ v3 }) =>
          v3.issues.getCreateIssueMetaIssueTypes<unknown>({
            projectIdOrKey: projectKey,
            startAt,
            maxResults: 200,
          }),
      }),
    createMetaFields: (projectKey: string, issueTypeId: string, startAt: number) =>
      send({
        operation: "GET /rest/api/3/issue/createmeta/{project}/issuetypes/{issueTypeId}",
        kind: "meta.createFields",
        write: false,
        id: issueTypeId,
        call: ({ v3 }) =>
          v3.issues.getCreateIssueMetaIssueTypeId<unknown>({
            projectIdOrKey: projectKey,
            issueTypeId,
            startAt,
            maxResults: 200,
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
    sprintIssues: (sprintId: number, startAt: number) =>
      send({
        operation: "GET /rest/agile/1.0/sprint/{id}/issue",
        kind: "agile.sprintIssues",
        write: false,
        id: String(sprintId),
        call: ({ agile }) =>
          agile.sprint.getIssuesForSprint<unknown>({
            sprintId,
            startAt,
            maxResults: 100,
            fields: ["summary"],
          }),
      }),
    deleteSprint: (sprintId: number) =>
      send({
        operation: "DELETE /rest/agile/1.0/sprint/{id}",
        kind: "sprint.delete",
        write: true,
        id: String(sprintId),
        call: ({ agile }) => agile.sprint.deleteSprint<unknown>({ sprintId }),
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
