import { describe, expect, it, vi } from "vitest";
import {
  AuthError,
  NotFoundError,
  PayloadInvalidError,
  PermissionError,
  RateLimitError,
  RemoteUnavailableError,
} from "../../core/errors.js";
import { toSyncError } from "./errors.js";

const ctx = { system: "jira" as const, operation: "GET /rest/api/3/issue/{key}", id: "WID-1" };

/** The shape jira.js 5 throws: an HttpException whose cause is the axios error. */
function httpError(status: number, data: unknown, headers: Record<string, string> = {}) {
  const axios = {
    code: "ERR_BAD_REQUEST",
    config: { headers: { Authorization: "Basic c2VjcmV0" } },
    response: { status, data, headers },
  };
  return Object.assign(new Error(`Request failed with status code ${status}`), {
    status,
    cause: axios,
  });
}

describe("toSyncError", () => {
  it("names the env vars on 401 and keeps no Authorization header", () => {
    const error = toSyncError(httpError(401, ""), ctx, {
      emailEnv: "JIRA_EMAIL",
      tokenEnv: "JIRA_TOKEN",
    });
    expect(error).toBeInstanceOf(AuthError);
    expect(error.message).toContain("JIRA_EMAIL and JIRA_TOKEN");
    expect(JSON.stringify([error.message, error.details, String(error.cause)])).not.toContain(
      "c2VjcmV0",
    );
  });

  it.each([
    [403, PermissionError],
    [404, NotFoundError],
    [400, PayloadInvalidError],
    [503, RemoteUnavailableError],
  ])("maps %i to %o", (status, type) => {
    expect(toSyncError(httpError(status, {}), ctx)).toBeInstanceOf(type);
  });

  it("quotes Jira's errorMessages and field errors on 400", () => {
    const error = toSyncError(
      httpError(400, { errorMessages: ["Bad"], errors: { labels: "no spaces" } }),
      ctx,
    );
    expect(error.message).toContain("Bad; labels: no spaces");
    expect(error.details.jiraErrors).toEqual({ labels: "no spaces" });
  });

  it("turns a 429 into RateLimitError with Retry-After and the reason", () => {
    const error = toSyncError(
      httpError(
        429,
        { errorMessages: ["Rate limit exceeded"] },
        { "retry-after": "3", "ratelimit-reason": "jira-per-issue-on-write" },
      ),
      ctx,
    );
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ retryAfterMs: 3000, limit: "burst" });
    expect(error.details.rateLimitReason).toBe("jira-per-issue-on-write");
  });

  it("falls back to X-RateLimit-Reset when Retry-After is missing", () => {
    // A fixed clock: the wait is the reset's distance from the moment the error is read.
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 24, 13, 15, 0) });
    try {
      const reset = new Date(Date.now() + 60_000).toISOString();
      const error = toSyncError(httpError(429, {}, { "x-ratelimit-reset": reset }), ctx);
      const wait = error instanceof RateLimitError ? error.retryAfterMs : 0;
      expect(wait).toBe(60_000);
    } finally {
      vi.useRealTimers();
    }
  });

  it("treats connection errors as transient unavailability", () => {
    const error = toSyncError(
      Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
      ctx,
    );
    expect(error).toBeInstanceOf(RemoteUnavailableError);
    expect(error).toMatchObject({ transient: true });
  });

  it("names an untrusted or bad TLS certificate, not retried, with what to do about it", () => {
    const failure = (code: string) =>
      toSyncError(Object.assign(new Error(`TLS: ${code}`), { code }), ctx, {
        baseUrl: "https://jira.example.com/jira",
      });
    const untrusted = failure("SELF_SIGNED_CERT_IN_CHAIN");
    expect(untrusted).toMatchObject({ transient: false });
    expect(untrusted.message).toContain("https://jira.example.com/jira");
    expect(untrusted.message).toContain("a CA this machine does not trust");
    expect(untrusted.hint).toContain("targets.jira.caFile");
    const expired = failure("CERT_HAS_EXPIRED");
    expect(expired).toMatchObject({ transient: false });
    expect(expired.hint).not.toContain("caFile");
    expect(expired.hint).toContain("renewed");
  });

  it("on Data Center names the personal access token and where to make one, not id.atlassian.com", () => {
    const error = toSyncError(httpError(401, ""), ctx, {
      tokenEnv: "JIRA_PAT",
      deployment: "datacenter",
    });
    expect(error).toBeInstanceOf(AuthError);
    expect(error.message).toContain("personal access token in JIRA_PAT (401)");
    // ctx names Cloud's path; the request went to REST v2.
    expect(error.message).not.toContain("/rest/api/3/");
    expect(error.hint).toContain("Personal Access Tokens");
    expect(error.hint).not.toContain("id.atlassian.com");
  });
});
