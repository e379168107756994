import { describe, expect, it } from "vitest";
import { retryBursts } from "./retry-bursts.js";

describe("retryBursts", () => {
  const failing = (attempt: number, system = "tinypm", code = "remote_unavailable") => ({
    system,
    code,
    attempt,
  });

  it("lets the first retry of each attempt through, once for a burst of 16 requests", () => {
    const bursts = retryBursts(60_000);
    const shown = [1, 2, 3].flatMap((attempt) =>
      Array.from({ length: 16 }, (_, i) => bursts.first(failing(attempt), 1_000 * attempt + i)),
    );
    expect(shown.filter(Boolean)).toHaveLength(3);
  });

  it("keeps systems and codes apart, and starts a new burst after the window", () => {
    const bursts = retryBursts(60_000);
    expect(bursts.first(failing(1), 0)).toBe(true);
    expect(bursts.first(failing(1, "github"), 0)).toBe(true);
    expect(bursts.first(failing(1, "tinypm", "rate_limited"), 0)).toBe(true);
    expect(bursts.first(failing(1), 59_999)).toBe(false);
    expect(bursts.first(failing(1), 60_000)).toBe(true);
  });
});
