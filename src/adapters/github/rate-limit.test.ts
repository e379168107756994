import { describe, expect, it } from "vitest";
import { rateLimitVerdict, readRateLimit } from "./rate-limit.js";

const now = 1_700_000_000_000;

describe("rateLimitVerdict", () => {
  it("uses retry-after seconds first", () => {
    const v = rateLimitVerdict({
      status: 403,
      headers: {
        "retry-after": "37",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": "1700000100",
      },
      message: "You have exceeded a secondary rate limit",
      now,
    });
    expect(v).toEqual({ limit: "secondary", retryAfterMs: 37_000, source: "retry-after" });
  });

  it("waits until x-ratelimit-reset when the quota is exhausted", () => {
    const v = rateLimitVerdict({
      status: 403,
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(now / 1000 + 120) },
      message: "API rate limit exceeded for user ID 1.",
      now,
    });
    expect(v).toEqual({ limit: "primary", retryAfterMs: 120_000, source: "x-ratelimit-reset" });
  });

  it("waits at least 60 s for a secondary limit without retry-after", () => {
    const v = rateLimitVerdict({
      status: 403,
      headers: { "x-ratelimit-remaining": "4000" },
      message: "You have exceeded a secondary rate limit. Please wait a few minutes",
      now,
    });
    expect(v).toEqual({ limit: "secondary", retryAfterMs: 60_000, source: "secondary-default" });
  });

  it("treats a bare 429 as a limit", () => {
    expect(rateLimitVerdict({ status: 429, headers: {}, message: "", now })?.retryAfterMs).toBe(
      60_000,
    );
  });

  it("leaves a plain 403 alone", () => {
    expect(
      rateLimitVerdict({
        status: 403,
        headers: { "x-ratelimit-remaining": "4999" },
        message: "Resource not accessible by personal access token",
        now,
      }),
    ).toBeUndefined();
    expect(rateLimitVerdict({ status: 404, headers: {}, message: "", now })).toBeUndefined();
  });
});

describe("readRateLimit", () => {
  it("reads the x-ratelimit headers as numbers", () => {
    expect(
      readRateLimit({
        "x-ratelimit-limit": "5000",
        "x-ratelimit-remaining": "4990",
        "x-ratelimit-used": "10",
        "x-ratelimit-reset": "1700000000",
        "x-ratelimit-resource": "core",
      }),
    ).toEqual({ limit: 5000, remaining: 4990, used: 10, reset: 1_700_000_000, resource: "core" });
  });
});
