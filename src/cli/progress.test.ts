import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
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

  it("shows bar, percentage, phase, done of total, ETA, parked items and the rate-limit wait", () => {
    expect(
      progressLine({ ...base, phase: "creating tasks", total: 40, failed: 2, waitMs: 20_000 }),
    ).toBe(
      "[█████░░░░░░░░░░░░░░░]  25% · creating tasks · 10/40 items (2 parked) · 2.0/s · ETA 15 s · rate limit: waiting 20 s",
    );
    expect(progressLine({ ...base, total: 40 }, { bar: false })).toBe(
      "25% · 10/40 items · 2.0/s · ETA 15 s",
    );
    expect(progressLine({ ...base, total: 1000 })).toContain("ETA 8 min 15 s");
  });
});

describe("createProgress", () => {
  it("draws on a terminal and clears the line at the end", () => {
    const { ctx, text } = context(true);
    const p = createProgress(ctx);
    p.event({ type: "rate_limited", system: "github", waitMs: 3000, operation: "create" });
    p.event(created);
    p.done();
    expect(text()).toContain("rate limit: waiting 3 s");
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
