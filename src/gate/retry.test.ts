import { describe, expect, it } from "vitest";
import {
  AuthError,
  ConflictError,
  NotFoundError,
  PayloadInvalidError,
  PermissionError,
  RateLimitError,
  RemoteUnavailableError,
} from "../core/errors.js";
import type { RetryPolicy } from "./retry.js";
import { DEFAULT_RETRY_POLICY, isAmbiguous, retryDelay } from "./retry.js";

const ctx = { system: "github", operation: "issues.create" } as const;
const policy: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 100,
  maxDelayMs: 600,
  maxTotalMs: 10_000,
};
const transient = new RemoteUnavailableError("503", { ...ctx, status: 503 });
const withRetryAfter = new RemoteUnavailableError("503", ctx, { details: { retryAfterMs: 700 } });
const permanent = new RemoteUnavailableError("DNS", ctx, { transient: false });
const limited = new RateLimitError("429", ctx, { retryAfterMs: 2_500 });
const half = (): number => 0.5;

describe("retryDelay", () => {
  it.each([
    ["transient, attempt 1", transient, 1, true, 0, 50],
    ["transient, attempt 2", transient, 2, true, 0, 100],
    ["transient, attempt 3", transient, 3, true, 0, 200],
    ["transient, capped at maxDelayMs", transient, 4, true, 0, 300],
    ["transient, last attempt", transient, 5, true, 0, undefined],
    ["transient on a non-idempotent call", transient, 1, false, 0, undefined],
    ["transient with Retry-After", withRetryAfter, 1, true, 0, 700],
    ["non-transient remote error", permanent, 1, true, 0, undefined],
    ["rate limit: exactly retryAfterMs", limited, 1, true, 0, 2_500],
    ["rate limit on a non-idempotent call", limited, 1, false, 0, 2_500],
    ["rate limit beyond the time budget", limited, 1, true, 8_000, undefined],
    ["rate limit just within the budget", limited, 1, true, 7_500, 2_500],
    ["auth", new AuthError("401", ctx), 1, true, 0, undefined],
    ["permission", new PermissionError("403", ctx), 1, true, 0, undefined],
    ["not found", new NotFoundError("404", ctx), 1, true, 0, undefined],
    ["payload", new PayloadInvalidError("bad", ctx), 1, true, 0, undefined],
    ["conflict", new ConflictError("changed", ctx), 1, true, 0, undefined],
    ["an unknown error", new Error("boom"), 1, true, 0, undefined],
  ])("%s", (_name, error, attempt, idempotent, elapsedMs, expected) => {
    expect(retryDelay({ attempt, error, policy, random: half, idempotent, elapsedMs })).toBe(
      expected,
    );
  });

  it("spreads the backoff over [0, ceiling) with full jitter", () => {
    const at = (r: number): number | undefined =>
      retryDelay({
        attempt: 3,
        error: transient,
        policy,
        random: () => r,
        idempotent: true,
        elapsedMs: 0,
      });
    expect(at(0)).toBe(0);
    expect(at(0.999)).toBe(399);
  });

  it("uses Math.random and the default policy when not given", () => {
    const delay = retryDelay({
      attempt: 1,
      error: transient,
      policy: DEFAULT_RETRY_POLICY,
      idempotent: true,
      elapsedMs: 0,
    });
    expect(delay).toBeGreaterThanOrEqual(0);
    expect(delay).toBeLessThan(DEFAULT_RETRY_POLICY.baseDelayMs);
  });

  it("calls only transient remote errors ambiguous", () => {
    expect([transient, permanent, limited, new Error("x")].map(isAmbiguous)).toEqual([
      true,
      false,
      false,
      false,
    ]);
  });
});
