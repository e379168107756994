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
import { dcOperationName } from "./dc-dialect.js";

/**
 * Jira failures → core errors, by shape (jira.js 5 throws an HttpException whose `cause` is the
 * axios error; network failures are bare axios errors). Used by `client.ts`, which re-exports
 * `toSyncError`.
 */

export interface ErrorContext {
  readonly system: "jira";
  readonly operation: string;
  readonly id?: string | undefined;
}

interface HttpShape {
  readonly status: number;
  readonly data: unknown;
  readonly headers: Readonly<Record<string, unknown>>;
}

/** Reads status, body and headers from a jira.js HttpException or an axios error, by shape. */
export function httpShape(error: unknown): HttpShape | undefined {
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

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function header(shape: HttpShape, name: string): string | undefined {
  const value = shape.headers[name] ?? shape.headers[name.toLowerCase()];
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined;
}

/** Jira's `{errorMessages, errors}` body, flattened for a message. */
function jiraErrorText(data: unknown): string {
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

/** TLS failures a CA file cures: the site's certificate chains to a CA Node does not trust. */
const UNTRUSTED_CERT_CODES = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_UNTRUSTED",
]);

/** TLS failures of the certificate itself, which no CA file cures. */
const BAD_CERT_CODES = new Set([
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "CERT_SIGNATURE_FAILURE",
]);

/** What a failed connection's code means, and what to do, when it is about the certificate. */
function tlsFailure(code: string | undefined): { what: string; hint: string } | undefined {
  if (code !== undefined && UNTRUSTED_CERT_CODES.has(code))
    return {
      what: "its TLS certificate is signed by a CA this machine does not trust",
      hint: "Set targets.jira.caFile to the PEM file of the CA that signed the site's certificate (common on self-hosted Data Center sites), then run `tinypm-sync check`.",
    };
  if (code !== undefined && BAD_CERT_CODES.has(code))
    return {
      what: "its TLS certificate is expired, not yet valid or made out for another host name",
      hint: "Use the host name the site's certificate names in baseUrl, or have the site's certificate renewed, then run `tinypm-sync check`.",
    };
  return undefined;
}

/**
 * Turns whatever jira.js threw into a core error. The cause kept is a plain summary: jira.js
 * errors carry the axios request config, whose Authorization header holds the token.
 */
export function toSyncError(
  error: unknown,
  ctx: ErrorContext,
  env: {
    emailEnv?: string | undefined;
    tokenEnv?: string | undefined;
    /** Named when no answer came (a refused connection, a timeout). */
    baseUrl?: string | undefined;
    /** Data Center: the token is a personal access token, made in Jira itself. */
    deployment?: "cloud" | "datacenter" | undefined;
  } = {},
): SyncError {
  if (error instanceof SyncError) return error;
  // On Data Center the request went to REST v2 (dc-transport.ts): the message names what was sent.
  if (env.deployment === "datacenter") ctx = { ...ctx, operation: dcOperationName(ctx.operation) };
  const shape = httpShape(error);
  const on = `${ctx.operation}${ctx.id ? ` (${ctx.id})` : ""}`;
  if (!shape) {
    const code = isRecord(error) && typeof error.code === "string" ? error.code : undefined;
    const message = error instanceof Error ? error.message : String(error);
    const transient = code === undefined || NETWORK_CODES.has(code);
    const tls = tlsFailure(code);
    if (tls !== undefined)
      return new RemoteUnavailableError(
        `Jira could not be reached${env.baseUrl === undefined ? "" : ` at ${env.baseUrl}`} for ${on}: ${tls.what} (${code ?? message}).`,
        ctx,
        { transient: false, hint: tls.hint, cause: new Error(message) },
      );
    return new RemoteUnavailableError(
      `Jira could not be reached${env.baseUrl === undefined ? "" : ` at ${env.baseUrl}`} for ${on} (${code ?? message}).`,
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
  if (status === 401 && env.deployment === "datacenter") {
    const vars = env.tokenEnv ?? "the configured personal access token";
    return new AuthError(
      `Jira Data Center rejected the personal access token in ${vars} (401) for ${on}.`,
      remote,
      {
        hint: `Create a personal access token in Jira (your profile → Personal Access Tokens), export ${vars}, then run \`tinypm-sync check\`.`,
        cause,
      },
    );
  }
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
  if (status >= 200 && status < 300) {
    // A success status with an error: the body did not parse (cut off in transit).
    return new RemoteUnavailableError(
      `Jira answered ${on} (${status}) with a body that does not parse (cut off in transit?).`,
      remote,
      {
        transient: true,
        cause,
        hint: "The connection dropped mid-answer; the run can be retried.",
      },
    );
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
