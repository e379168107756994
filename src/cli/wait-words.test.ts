import { describe, expect, it } from "vitest";
import { clockTime, longestWait, waitCause, waitEndLine, waitLine } from "./wait-words.js";

const at = (h: number, m: number, s = 0): number => new Date(2026, 10, 24, h, m, s).getTime();

describe("wait words", () => {
  it("names every reason of the gate", () => {
    expect(waitCause("github", "hour")).toBe("GitHub's hourly limit");
    expect(waitCause("github", "minute")).toBe("GitHub's per-minute limit");
    expect(waitCause("tinypm", "second")).toBe("tinyPM's per-second limit");
    expect(waitCause("jira", "key")).toBe("Jira's limit on writes to one item");
    expect(waitCause("github", "service")).toBe(
      "GitHub's own rate limit (the service asked to wait)",
    );
    expect(waitCause("jira", "retry")).toBe("the next try of a failed Jira request");
  });

  it("says when the wait ends, to the second only for short waits", () => {
    expect(clockTime(at(14, 5), at(13, 15))).toBe("14:05");
    expect(clockTime(at(14, 5, 30), at(14, 5))).toBe("14:05:30");
    expect(waitLine({ system: "github", reason: "hour", until: at(14, 5) }, at(13, 15))).toBe(
      "waiting for GitHub's hourly limit · resumes 14:05 (in 50 min 0 s)",
    );
    expect(waitLine({ system: "github", reason: "hour", until: at(14, 5) }, at(14, 6))).toContain(
      "(in 0 s)",
    );
  });

  it("ends a wait in one line and picks the wait that ends last", () => {
    expect(waitEndLine("github", "minute", 61_000)).toBe(
      "GitHub: waited 1 min 1 s for GitHub's per-minute limit; resuming",
    );
    expect(waitEndLine("jira", undefined, 500)).toBe("Jira: waited 1 s; resuming");
    const a = { system: "github", reason: "hour", until: 5 } as const;
    const b = { system: "jira", reason: "retry", until: 9 } as const;
    expect(longestWait([a, b])).toBe(b);
    expect(longestWait([])).toBeUndefined();
  });
});
