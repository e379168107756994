import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CliContext } from "./context.js";
import { createProgress, progressLine, type ProgressState } from "./progress.js";

const base: ProgressState = { done: 10, failed: 0, total: undefined, elapsedMs: 5000, waitMs: 0 };

function context(isTTY: boolean): { ctx: CliContext; text: () => string } {
  const stderr = Object.assign(new PassThrough(), { isTTY });
  let text = "";
  stderr.on("data", (d: Buffer) => (text += d.toString()));
  const ctx: CliContext = {
    stdout: new PassThrough(),
    stderr,
    env: {},
    cwd: ".",
    signal: new AbortController().signal,
    waitForStop: () => new Promise(() => undefined),
    exitCode: 0,
  };
  return { ctx, text: () => text };
}

const created = {
  type: "created",
  kind: "story",
  side: "target",
  title: "t",
  id: "1",
  sourceId: "1",
} as const;

describe("progressLine", () => {
  it("shows done and rate without a total", () => {
    expect(progressLine(base)).toBe("10 items · 2.0/s");
  });

  // The ETA includes the known wait since issue 16 (15 s of work + 20 s of wait).
  it("shows bar, percentage, phase, done of total, ETA, parked items and the rate-limit wait", () => {
    expect(
      progressLine({ ...base, phase: "creating tasks", total: 40, failed: 2, waitMs: 20_000 }),
    ).toBe(
      "[█████░░░░░░░░░░░░░░░]  25% · creating tasks · 10/40 items (2 parked) · 2.0/s · ETA 35 s · rate limit: waiting 20 s",
    );
    expect(progressLine({ ...base, total: 40 }, { bar: false })).toBe(
      "25% · 10/40 items · 2.0/s · ETA 15 s",
    );
    expect(progressLine({ ...base, total: 1000 })).toContain("ETA 8 min 15 s");
  });
});

describe("progressLine while reading", () => {
  it("shows the phase's time, its requests, and stories read of how many", () => {
    const reading = { ...base, done: 0, phase: "reading tinyPM", phaseMs: 4_300, requests: 12 };
    expect(progressLine(reading)).toBe("reading tinyPM · 4 s · 12 requests");
    expect(progressLine({ ...reading, read: { items: 95, stories: 40, storiesTotal: 120 } })).toBe(
      "reading tinyPM · 4 s · 12 requests · 40/120 stories read (95 with their tasks)",
    );
    expect(
      progressLine({ ...reading, phase: "reading GitHub", requests: 1, read: { items: 1 } }),
    ).toBe("reading GitHub · 4 s · 1 request · 1 item read");
  });
});

describe("createProgress", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("shows a gate wait in words, counts it down every repaint, and adds it to the ETA", () => {
    vi.useFakeTimers({ now: new Date(2026, 10, 24, 13, 15, 0) });
    const { ctx, text } = context(true);
    const p = createProgress(ctx);
    p.event({ type: "progress", phase: "creating stories", done: 0, total: 20 });
    vi.advanceTimersByTime(10_000);
    for (let i = 0; i < 10; i++) p.event(created);
    p.event({
      type: "wait_start",
      system: "github",
      reason: "hour",
      until: Date.now() + 50 * 60_000,
      operation: "POST /repos/o/r/issues",
    });
    expect(text()).toContain("waiting for GitHub's hourly limit · resumes 14:05 (in 50 min 0 s)");
    // 10 items in 10 s: 10 s of work left plus the 50 min wait.
    expect(text()).toContain("ETA 50 min 10 s");
    vi.advanceTimersByTime(1000);
    expect(text()).toContain("(in 49 min 59 s)");
    vi.advanceTimersByTime(1000);
    expect(text()).toContain("(in 49 min 58 s)");
    // Time spent waiting does not lower the rate.
    expect(text().slice(text().lastIndexOf("\r"))).toContain("1.0/s");
    vi.advanceTimersByTime(50 * 60_000);
    p.event({ type: "wait_end", system: "github", waitedMs: 50 * 60_000 });
    const last = text().slice(text().lastIndexOf("\r"));
    expect(last).not.toContain("waiting");
    expect(last).toContain("1.0/s");
    p.done();
  });

  it("foresees the windows the run's writes will meet: the ETA is never below the limits' schedule", () => {
    vi.useFakeTimers({ now: new Date(2026, 10, 24, 13, 15, 0) });
    const { ctx, text } = context(true);
    // The job's limits as the CLI gives them (plan-estimate.ts): 600 writes at 500 an hour.
    const p = createProgress(ctx, undefined, undefined, (writes) => {
      const n = Object.values(writes).reduce((a, b) => a + b, 0);
      const durationMs = n > 500 ? 3_720_000 : n * 750;
      return { durationMs, boundBy: "GitHub's 500 content writes per hour" };
    });
    p.event({ type: "write_forecast", writes: { github: 600 } });
    p.event({ type: "progress", phase: "creating stories", done: 0, total: 600 });
    vi.advanceTimersByTime(10_000);
    for (let i = 0; i < 100; i++) p.event(created);
    vi.advanceTimersByTime(500);
    // 100 items in 10 s would say 50 s left; the hourly window says 1 h 1 min 50 s.
    const last = text().slice(text().lastIndexOf("\r"));
    expect(last).toContain("ETA 1 h 1 min");
    expect(last).toContain("(bound by GitHub's 500 content writes per hour)");
    p.done();
  });

  it("keeps the pace's ETA when the limits hold nothing back", () => {
    vi.useFakeTimers({ now: new Date(2026, 10, 24, 13, 15, 0) });
    const { ctx, text } = context(true);
    const p = createProgress(ctx, undefined, undefined, () => undefined);
    p.event({ type: "write_forecast", writes: { github: 20 } });
    p.event({ type: "progress", phase: "creating stories", done: 0, total: 20 });
    vi.advanceTimersByTime(10_000);
    for (let i = 0; i < 10; i++) p.event(created);
    vi.advanceTimersByTime(500);
    const last = text().slice(text().lastIndexOf("\r"));
    expect(last).toMatch(/ETA 1\d s/);
    expect(last).not.toContain("bound by");
    p.done();
  });

  it("names each reason in words and shows the wait that ends last", () => {
    vi.useFakeTimers({ now: new Date(2026, 10, 24, 9, 0, 0) });
    const { ctx, text } = context(true);
    const p = createProgress(ctx);
    p.event({
      type: "wait_start",
      system: "jira",
      reason: "retry",
      until: Date.now() + 4000,
      operation: "GET /rest/api/3/issue/P-1",
    });
    expect(text()).toContain(
      "waiting for the next try of a failed Jira request · resumes 09:00:04 (in 4 s)",
    );
    p.event({
      type: "wait_start",
      system: "tinypm",
      reason: "second",
      until: Date.now() + 90_000,
      operation: "GET story 3",
    });
    expect(text()).toContain(
      "waiting for tinyPM's per-second limit · resumes 09:01:30 (in 1 min 30 s)",
    );
    p.event({ type: "wait_end", system: "tinypm", waitedMs: 1 });
    expect(text().slice(text().lastIndexOf("\r"))).toContain("failed Jira request");
    p.done();
  });

  it("draws on a terminal and clears the line at the end", () => {
    const { ctx, text } = context(true);
    const p = createProgress(ctx);
    p.event({
      type: "wait_start",
      system: "github",
      reason: "minute",
      until: Date.now() + 3000,
      operation: "create",
    });
    p.event({ type: "wait_end", system: "github", waitedMs: 3000 });
    p.event(created);
    p.done();
    expect(text()).toContain("waiting for GitHub's per-minute limit");
    expect(text().endsWith("\r\x1b[2K")).toBe(true);
  });

  it("writes nothing off a terminal, and logs plain lines instead", () => {
    const { ctx, text } = context(false);
    const lines: string[] = [];
    const p = createProgress(ctx, (_s, line) => lines.push(line), 0);
    p.event({ type: "progress", phase: "apply", done: 0, total: 5 });
    p.event(created);
    p.done();
    expect(text()).toBe("");
    expect(lines.at(-1)).toMatch(/^20% · 1\/5 items · /);
  });
});
