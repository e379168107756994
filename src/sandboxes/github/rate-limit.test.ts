import { describe, expect, it } from "vitest";
import { createClock, isoSeconds } from "./clock.js";
import { createRateLimiter, parseRateLimitSpec, REAL_RULES } from "./rate-limit.js";

const MIN = 60_000;

describe("parseRateLimitSpec", () => {
  it("reads off, real and specs, keeping real values for buckets not named", () => {
    expect(parseRateLimitSpec("off")).toMatchObject({ enforce: false });
    expect(parseRateLimitSpec("real")).toMatchObject({ enforce: true, rules: REAL_RULES });
    const c = parseRateLimitSpec(
      "creates=5/min, creates=20/h, primary-status=429, retry-after=off",
    );
    expect(c.rules).toEqual([
      { bucket: "creates", limit: 5, windowMs: MIN },
      { bucket: "creates", limit: 20, windowMs: 60 * MIN },
      { bucket: "core", limit: 5000, windowMs: 60 * MIN },
      { bucket: "search", limit: 30, windowMs: MIN },
    ]);
    expect(c).toMatchObject({ primaryStatus: 429, secondaryStatus: 403, retryAfter: false });
  });

  it.each(["creates=lots", "pulls=5/min", "core=5/fortnight", "core=0/h", "primary-status=500"])(
    "refuses %s with an example",
    (spec) => {
      expect(() => parseRateLimitSpec(spec)).toThrow(/example: core=5000\/h/);
    },
  );
});

describe("createRateLimiter", () => {
  it("refuses creations past a sliding window and says when a slot frees", () => {
    const l = createRateLimiter(parseRateLimitSpec("creates=2/min"));
    expect(l.create(0).ok).toBe(true);
    expect(l.create(10_000).ok).toBe(true);
    expect(l.create(20_000)).toEqual({ ok: false, kind: "secondary", retryAfterMs: 40_000 });
    expect(l.create(MIN).ok).toBe(true); // the creation at 0 left the window
    expect(l.create(MIN + 1)).toMatchObject({ ok: false, retryAfterMs: 10_000 - 1 });
  });

  it("takes the longest wait over several windows", () => {
    const l = createRateLimiter(parseRateLimitSpec("creates=10/min,creates=3/h"));
    for (const t of [0, 1, 2]) expect(l.create(t).ok).toBe(true);
    expect(l.create(5 * MIN)).toMatchObject({ ok: false, retryAfterMs: 55 * MIN });
  });

  it("counts a primary window from its first request and resets it after the window", () => {
    const l = createRateLimiter(parseRateLimitSpec("core=2/h"));
    expect(l.charge("core", 1000).ok).toBe(true);
    expect(l.charge("core", 2000).ok).toBe(true);
    expect(l.charge("core", 3000)).toMatchObject({
      ok: false,
      kind: "primary",
      state: { limit: 2, used: 2, remaining: 0, reset: 1000 + 60 * MIN },
    });
    expect(l.charge("core", 1000 + 60 * MIN).ok).toBe(true);
    expect(l.peek("core", 1000 + 60 * MIN)).toMatchObject({ used: 1, remaining: 1 });
  });

  it("never refuses when off", () => {
    const l = createRateLimiter(parseRateLimitSpec("off"));
    for (let i = 0; i < 100; i++) expect(l.create(i).ok).toBe(true);
  });
});

describe("clock", () => {
  it("runs N times faster and maps sandbox instants back to real ones", () => {
    let real = 1_000_000;
    const clock = createClock(60, () => real);
    real += 1000;
    expect(clock.now()).toBe(1_000_000 + 60_000);
    expect(clock.toReal(60_000)).toBe(1000);
    expect(clock.realAt(1_000_000 + 120_000)).toBe(1_002_000);
  });

  it("formats GitHub timestamps with whole seconds", () => {
    expect(isoSeconds(Date.UTC(2026, 0, 2, 3, 4, 5, 678))).toBe("2026-01-02T03:04:05Z");
  });
});
