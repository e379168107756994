import type { SyncEvent } from "../sync/events.js";
import type { CliContext } from "./context.js";
import { terminalOf } from "./terminal.js";

export interface Progress {
  event(e: SyncEvent): void;
  done(): void;
}

/** What the display knows at one moment. */
export interface ProgressState {
  /** What the run is doing (`reading tinyPM`, `creating stories`…), once the engine says. */
  readonly phase?: string | undefined;
  readonly done: number;
  readonly failed: number;
  /** Items the run will touch, once the engine says (`progress` events); unknown before. */
  readonly total: number | undefined;
  /** Time the items were worked on (since the first `progress` event), for the rate. */
  readonly elapsedMs: number;
  /** Remaining rate-limit wait, 0 when none. */
  readonly waitMs: number;
}

const BAR_WIDTH = 20;

/**
 * `[██████░░░░░░░░░░░░░░]  30% · creating tasks · 12/40 items · 3.1/s · ETA 9 s` on a terminal;
 * without the bar (`30% · creating tasks · …`) in log lines.
 */
export function progressLine(s: ProgressState, opts: { bar?: boolean } = {}): string {
  const rate = s.done / Math.max(s.elapsedMs / 1000, 0.001);
  const parts: string[] = [];
  if (s.total !== undefined && s.total > 0) {
    const ratio = Math.min(1, s.done / s.total);
    const filled = Math.round(ratio * BAR_WIDTH);
    const percent = `${Math.floor(ratio * 100)}%`;
    parts.push(
      opts.bar === false
        ? percent
        : `[${"█".repeat(filled)}${"░".repeat(BAR_WIDTH - filled)}] ${percent.padStart(4)}`,
    );
  }
  if (s.phase !== undefined) parts.push(s.phase);
  parts.push(
    `${s.done}${s.total === undefined ? "" : `/${s.total}`} items${s.failed > 0 ? ` (${s.failed} parked)` : ""}`,
    `${rate.toFixed(1)}/s`,
  );
  if (s.total !== undefined && rate > 0 && s.done < s.total) {
    parts.push(`ETA ${duration(((s.total - s.done) / rate) * 1000)}`);
  }
  if (s.waitMs > 0) parts.push(`rate limit: waiting ${duration(s.waitMs)}`);
  return parts.join(" · ");
}

/** `45 s`, `3 min 5 s`, `2 h 10 min`. */
export function duration(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

const COUNTED = new Set<SyncEvent["type"]>(["created", "updated", "adopted", "deleted"]);
/** How often the terminal line is repainted even when nothing happens (the clock moves). */
const REPAINT_MS = 500;

/**
 * A one-line progress display on a terminal (stderr): bar, percentage, phase, items done (of the
 * total once the engine reports one), rate, ETA, the current rate-limit wait; repainted twice a
 * second, kept below the log lines (see terminal.ts). Off a terminal it draws nothing; with
 * `log`, it reports the same figures as a plain log line at most every `everyMs`.
 */
export function createProgress(
  ctx: CliContext,
  log?: (state: ProgressState, line: string) => void,
  everyMs = 10_000,
): Progress {
  const terminal = terminalOf(ctx);
  const started = Date.now();
  let workStarted: number | undefined;
  let phase: string | undefined;
  let done = 0;
  let failed = 0;
  let total: number | undefined;
  let waitUntil = 0;
  let lastDraw = 0;
  let lastLog = started;
  const state = (now: number): ProgressState => ({
    phase,
    done,
    failed,
    total,
    elapsedMs: now - (workStarted ?? started),
    waitMs: Math.max(0, waitUntil - now),
  });
  const draw = (force: boolean): void => {
    const now = Date.now();
    if (terminal.tty && (force || now - lastDraw >= 100)) {
      lastDraw = now;
      terminal.setStatus(progressLine(state(now)));
    } else if (!terminal.tty && log !== undefined && now - lastLog >= everyMs) {
      lastLog = now;
      log(state(now), progressLine(state(now), { bar: false }));
    }
  };
  const timer = terminal.tty
    ? setInterval(() => {
        draw(true);
      }, REPAINT_MS)
    : undefined;
  timer?.unref();
  return {
    event(e) {
      if (COUNTED.has(e.type)) done++;
      if (e.type === "failed") failed++;
      if (e.type === "progress") {
        total = e.total;
        workStarted ??= Date.now();
      }
      const changedPhase = e.type === "phase" && e.phase !== phase;
      if (e.type === "phase") phase = e.phase;
      if (e.type === "rate_limited") waitUntil = Date.now() + e.waitMs;
      draw(e.type === "rate_limited" || changedPhase);
    },
    done() {
      if (timer !== undefined) clearInterval(timer);
      terminal.clearStatus();
    },
  };
}
