import { describe, expect, it } from "vitest";
import { createRateLimiter, parseRateLimitSpec } from "./rate-limit.js";

describe("the rate limiter", () => {
  const get = { method: "GET", endpoint: "/x", write: false };

  it("refills an endpoint bucket over its window", () => {
    const limiter = createRateLimiter(parseRateLimitSpec("get=2/s"));
    expect(limiter.check(get, 0).allowed).toBe(true);
    expect(limiter.check(get, 0).allowed).toBe(true);
    const denied = limiter.check(get, 0);
    expect(denied).toMatchObject({ allowed: false, reason: "jira-burst-based", retryAfterMs: 500 });
    expect(limiter.check(get, 500).allowed).toBe(true);
  });

  it("applies both per-issue windows (20 per 2 s and 100 per 30 s)", () => {
    const limiter = createRateLimiter(parseRateLimitSpec("real"));
    const write = { method: "POST", endpoint: "/issue/:k/comment", write: true, issueId: "1" };
    for (let i = 0; i < 20; i++) expect(limiter.check(write, i).allowed).toBe(true);
    expect(limiter.check(write, 20)).toMatchObject({
      allowed: false,
      reason: "jira-per-issue-on-write",
    });
    expect(limiter.check({ ...write, issueId: "2" }, 20).allowed).toBe(true);
    let t = 2000;
    let allowed = 20;
    while (t < 30_000 && allowed < 101) {
      if (limiter.check(write, t).allowed) allowed++;
      t += 50;
    }
    expect(allowed).toBe(100);
  });

  it("refuses an unknown name with the valid ones", () => {
    expect(() => parseRateLimitSpec("writes=1/s")).toThrow(
      /name one of get, post, put, delete, issue-writes/,
    );
  });
});
