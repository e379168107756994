/** GitHub's GraphQL error answers (HTTP 200 with `errors[].type`) → core's typed errors. */
import {
  NotFoundError,
  PayloadInvalidError,
  PermissionError,
  RateLimitError,
  type RemoteContext,
  type SyncError,
} from "../../core/errors.js";
import { readRateLimit, type Headers } from "./rate-limit.js";

interface GraphqlErrorLike {
  readonly name?: string;
  readonly errors?: readonly { type?: string; message?: string; path?: readonly unknown[] }[];
  readonly headers?: Headers;
}

/**
 * `RATE_LIMITED` → RateLimitError until `x-ratelimit-reset` (the gate waits it out), `NOT_FOUND` →
 * NotFoundError, `FORBIDDEN` and `INSUFFICIENT_SCOPES` (a classic token without the project
 * scope; the hint names the scope GitHub asks for) → PermissionError, anything else (validation, `UNPROCESSABLE`) →
 * PayloadInvalidError with GitHub's errors. `undefined` when `err` is not a GraphQL answer (an
 * HTTP error: 401, a secondary limit's 403), which the REST mapping handles.
 */
export function graphqlError(
  err: unknown,
  ctx: RemoteContext,
  opts: { tokenEnv?: string | undefined; now: number },
): SyncError | undefined {
  const e = (typeof err === "object" && err !== null ? err : {}) as GraphqlErrorLike;
  if (e.name !== "GraphqlResponseError" || e.errors === undefined) return undefined;
  const errors = e.errors;
  const first = errors[0];
  const types = new Set(errors.map((x) => x.type));
  const text = errors.map((x) => x.message ?? "").join("; ");
  const what = `GitHub ${ctx.operation} failed: ${text}`;
  const full: RemoteContext = { ...ctx, status: 200 };
  if (types.has("RATE_LIMITED")) {
    const reset = Number(e.headers?.["x-ratelimit-reset"]);
    const retryAfterMs = Number.isFinite(reset) ? Math.max(1000, reset * 1000 - opts.now) : 60_000;
    return new RateLimitError(
      `GitHub GraphQL rate limit on ${ctx.operation}: wait ${retryAfterMs} ms (until x-ratelimit-reset); GitHub said "${text}"`,
      full,
      {
        retryAfterMs,
        limit: "primary",
        hint: "GraphQL has its own budget (5,000 points an hour); wait for the reset or run later.",
        details: { rateLimit: readRateLimit(e.headers ?? {}) },
      },
    );
  }
  if (types.has("NOT_FOUND"))
    return new NotFoundError(what, full, {
      hint: "Check targets.github.project (owner, number or title) and that the token can see the project (classic token: read:project, project).",
      details: { path: first?.path },
    });
  if (types.has("INSUFFICIENT_SCOPES")) {
    // GitHub names the scopes the field requires: "requires one of the following scopes: ['project']".
    const scope = /following scopes: \[([^\]]*)\]/.exec(text)?.[1]?.replace(/'/g, "") ?? "project";
    return new PermissionError(what, full, {
      hint: `Give ${opts.tokenEnv ?? "the token"} the ${scope} scope (classic token; \`project\` covers reading and writing the board), or use a token that has it.`,
    });
  }
  if (types.has("FORBIDDEN"))
    return new PermissionError(what, full, {
      hint: `Give ${opts.tokenEnv ?? "the token"} the project scope (classic token: project; fine-grained, organization projects only: Projects read/write).`,
    });
  return new PayloadInvalidError(what, full, {
    hint: "GitHub refused the GraphQL request; see details.errors.",
    details: { errors: errors.map((x) => ({ type: x.type, message: x.message, path: x.path })) },
  });
}
