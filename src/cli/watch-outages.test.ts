import { describe, expect, it } from "vitest";
import { RateLimitError, RemoteUnavailableError, AuthError } from "../core/errors.js";
import { backoffMs, createOutageTracker, isOutage, type OutagePolicy } from "./watch-outages.js";

const policy = (random: number): OutagePolicy => ({
  baseMs: 5_000,
  capMs: 60_000,
  stillDownEveryMs: 600_000,
  random: () => random,
});
const ctx = { system: "tinypm", operation: "GET /project/1/iterations" } as const;

describe("backoffMs", () => {
  it("doubles per failed try up to the cap, with jitter between half and all of it", () => {
    expect([1, 2, 3, 4, 5, 9].map((n) => backoffMs(n, policy(0.999_999)))).toEqual([
      5_000, 10_000, 20_000, 40_000, 60_000, 60_000,
    ]);
    expect([1, 2, 9].map((n) => backoffMs(n, policy(0)))).toEqual([2_500, 5_000, 30_000]);
  });
});

describe("isOutage", () => {
  it("is an unreachable system or a rate limit, never a refused token", () => {
    expect(isOutage(new RemoteUnavailableError("connect ECONNREFUSED", ctx))).toBe(true);
    expect(isOutage(new RateLimitError("slow down", ctx, { retryAfterMs: 1000 }))).toBe(true);
    expect(isOutage(new AuthError("token refused", ctx))).toBe(false);
    expect(isOutage(new Error("bug"))).toBe(false);
  });
});

describe("createOutageTracker", () => {
  it("says down once, still down at the slow cadence, and back once", () => {
    const t = createOutageTracker(policy(0.5));
    const at = (h: number, m: number, s = 0): number => new Date(2026, 10, 24, h, m, s).getTime();
    expect(t.failed("tinypm", "[remote_unavailable] refused", at(1, 0), at(1, 0, 5))).toBe(
      "tinyPM is down since 01:00:00: [remote_unavailable] refused; next try 01:00:05 (in 5 s)",
    );
    expect(t.isDown("tinypm")).toBe(true);
    expect(t.failed("tinypm", "again", at(1, 5), at(1, 6))).toBeUndefined();
    expect(t.failed("tinypm", "again", at(1, 10), at(1, 15))).toBe(
      "tinyPM still down since 01:00:00 (10 min 0 s); next try 01:15 (in 5 min 0 s)",
    );
    expect(t.reached("github", at(1, 11))).toBeUndefined();
    expect(t.reached("tinypm", at(1, 12))).toBe(
      "tinyPM is back after 12 min 0 s (down since 01:00:00)",
    );
    expect(t.reached("tinypm", at(1, 13))).toBeUndefined();
    expect(t.isDown("tinypm")).toBe(false);
  });
});
