import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../log/logger.js";
import { logEvent } from "./job-run.js";

function memoryLog(): {
  log: ReturnType<typeof createLogger>;
  lines: () => Record<string, unknown>[];
} {
  const chunks: string[] = [];
  const log = createLogger({ level: "info", stream: { write: (c: string) => chunks.push(c) } });
  return {
    log,
    lines: () => chunks.map((c) => JSON.parse(c) as Record<string, unknown>),
  };
}

describe("logEvent for waits", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("logs one line when a wait starts and one when it ends, in words", () => {
    // A fixed clock: the line counts down from the moment it is logged, so a real one read a
    // second after `until` was set (a loaded machine) made it 49 min 59 s.
    vi.useFakeTimers({ now: new Date(2026, 10, 24, 13, 15, 0) });
    const { log, lines } = memoryLog();
    const until = Date.now() + 50 * 60_000;
    logEvent(log, {
      type: "wait_start",
      system: "github",
      reason: "hour",
      until,
      operation: "POST /repos/o/r/issues",
    });
    logEvent(log, { type: "wait_end", system: "github", waitedMs: 3_000_000 });
    const [start, end] = lines();
    expect(lines()).toHaveLength(2);
    expect(start).toMatchObject({
      level: 30,
      system: "github",
      reason: "hour",
      until: new Date(until).toISOString(),
      operation: "POST /repos/o/r/issues",
    });
    expect(start?.msg).toBe("waiting for GitHub's hourly limit · resumes 14:05 (in 50 min 0 s)");
    expect(end).toMatchObject({ level: 30, system: "github", waitedMs: 3_000_000 });
    expect(end?.msg).toBe("GitHub: waited 50 min 0 s; resuming");
  });
});
