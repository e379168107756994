import type { Params } from "../../server-kit/router.js";
import type { Account } from "./site.js";
import type { IssueRecord, JiraStore } from "./store.js";

/** An error answered as Jira's error body `{errorMessages, errors}` with an HTTP status. */
export class JiraHttpError extends Error {
  override readonly name = "JiraHttpError";
  readonly status: number;
  readonly errorMessages: readonly string[];
  readonly errors: Readonly<Record<string, string>>;
  constructor(
    status: number,
    errorMessages: readonly string[],
    errors: Readonly<Record<string, string>> = {},
  ) {
    super(errorMessages[0] ?? Object.values(errors)[0] ?? `HTTP ${status}`);
    this.status = status;
    this.errorMessages = errorMessages;
    this.errors = errors;
  }
}

/** 400 with field errors (`errors.<field>`), the shape Jira uses for validation failures. */
export function fieldErrors(errors: Readonly<Record<string, string>>): JiraHttpError {
  return new JiraHttpError(400, [], errors);
}

export function badRequest(message: string): JiraHttpError {
  return new JiraHttpError(400, [message]);
}

export function notFound(message: string): JiraHttpError {
  return new JiraHttpError(404, [message]);
}

/** What a route handler gets: the store, the request's params, query and parsed JSON body. */
export interface RequestContext {
  readonly store: JiraStore;
  readonly params: Params;
  readonly query: URLSearchParams;
  readonly body: unknown;
  /** The server origin, for absolute `self` URLs. */
  readonly origin: string;
  /** The authenticated account. */
  readonly user: Account;
  readonly indexingLagMs: number;
  /** The store's time source (epoch ms), for the search index's lag. */
  readonly clock: () => number;
  readonly limits: SandboxLimits;
}

/** Per-issue caps; past them Jira answers 413. */
export interface SandboxLimits {
  readonly maxCommentsPerIssue: number;
  readonly maxWorklogsPerIssue: number;
}

export interface Reply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export type RouteHandler = (ctx: RequestContext) => Reply;

export interface RouteDef {
  readonly method: "GET" | "POST" | "PUT" | "DELETE";
  readonly pattern: string;
  readonly handler: RouteHandler;
  /** Whether a success counts as a write (default: every method but GET). */
  readonly write?: boolean;
}

export function ok(body: unknown): Reply {
  return { status: 200, body };
}

export function created(body: unknown): Reply {
  return { status: 201, body };
}

export function noContent(): Reply {
  return { status: 204 };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON body as an object, or a 400 like Jira's when it is missing or not an object. */
export function bodyObject(ctx: RequestContext): Record<string, unknown> {
  if (!isRecord(ctx.body)) {
    throw badRequest("The request body must be a JSON object.");
  }
  return ctx.body;
}

/** Reads an integer query parameter with a default and an upper cap. */
export function intParam(ctx: RequestContext, name: string, fallback: number, max: number): number {
  const raw = ctx.query.get(name);
  if (raw === null || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw badRequest(`The '${name}' parameter must be a non-negative integer (got '${raw}').`);
  }
  return Math.min(value, max);
}

export const ISSUE_NOT_FOUND = "Issue does not exist or you do not have permission to see it.";

/** Finds the issue of the `:issueIdOrKey` route parameter, or answers 404 like Jira. */
export function issueParam(ctx: RequestContext): IssueRecord {
  const issue = ctx.store.findIssue(ctx.params.issueIdOrKey ?? "");
  if (issue === undefined) throw notFound(ISSUE_NOT_FOUND);
  return issue;
}

/**
 * A boolean query parameter as Jira reads it: `true`/`false` in any case (`True`, `TRUE` — what
 * Python clients send); anything else → 400 naming the parameter.
 */
export function queryFlag(query: URLSearchParams, name: string, fallback = false): boolean {
  const raw = query.get(name);
  if (raw === null || raw === "") return fallback;
  const v = raw.toLowerCase();
  if (v === "true") return true;
  if (v === "false") return false;
  throw badRequest(`The value '${raw}' is invalid for the boolean parameter '${name}'.`);
}
