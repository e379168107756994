import { describe, expect, it } from "vitest";
import { dcRateLimitHoldMs } from "./dc-rate-limit.js";

const bucket = (remaining: string, extra: Record<string, string> = {}) => ({
  "x-ratelimit-limit": "100",
  "x-ratelimit-remaining": remaining,
  "x-ratelimit-interval-seconds": "2",
  "x-ratelimit-fillrate": "5",
  "retry-after": "0",
  ...extra,
});

describe("dcRateLimitHoldMs", () => {
  it("holds nothing without DC's headers (rate limiting off) or while tokens remain", () => {
    expect(dcRateLimitHoldMs({})).toBeUndefined();
    expect(dcRateLimitHoldMs({ "retry-after": "3" })).toBeUndefined();
    expect(dcRateLimitHoldMs(bucket("1"))).toBe(0);
    expect(dcRateLimitHoldMs(bucket("57"))).toBe(0);
  });

  it("holds for one token's refill once the bucket is empty: interval ÷ fill rate", () => {
    expect(dcRateLimitHoldMs(bucket("0"))).toBe(400);
    expect(dcRateLimitHoldMs(bucket("0", { "x-ratelimit-fillrate": "3" }))).toBe(667);
    expect(dcRateLimitHoldMs({ "x-ratelimit-remaining": "0" })).toBe(1000);
  });

  it("takes a Retry-After that asks for a wait over the bucket's arithmetic", () => {
    expect(dcRateLimitHoldMs(bucket("0", { "retry-after": "7" }))).toBe(7000);
    expect(dcRateLimitHoldMs(bucket("0", { "retry-after": "x" }))).toBe(400);
  });
});
