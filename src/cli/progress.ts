import type { SyncEvent } from "../sync/events.js";
import type { CliContext } from "./context.js";

export interface Progress {
  event(e: SyncEvent): void;
  done(): void;
}

/** What the display knows at one moment. */
export interface ProgressState {
  readonly done: number;
  readonly failed: number;
  /** Items the run will touch, once the engine says (`progress` events); unknown before. */
  readonly total: number | undefined;
  readonly elapsedMs: number;
  /** Remaining rate-limit wait, 0 when none. */
  readonly waitMs: number;
}

/** `12/40 items (2 parked) · 3.1/s · ETA 9 s · rate limit: waiting 20 s` */
export function progressLine(s: ProgressState): string {
  const rate = s.done / Math.max(s.elapsedMs / 1000, 0.001);
  const parts = [
    `${s.done}${s.total === undefined ? "" : `/${s.total}`} items${s.failed > 0 ? ` (${s.failed} parked)` : ""}`,
    `${rate.toFixed(1)}/s`,
  ];
  if (s.total !== undefined && rate > 0 && s.done < s.total) {
    parts.push(`ETA ${duration(((s.total - s.done) / rate) * 1000)}`);
  }
  if (s.waitMs > 0) parts.push(`rate limit: waiting ${duration(s.waitMs)}`);
  return parts.join(" · ");
}

function duration(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

const COUNTED = new Set<SyncEvent["type"]>(["created", "updated", "adopted", "deleted"]);

/**
 * A one-line progress display on a terminal (stderr): items done (of the total once the engine
 * reports one), rate, ETA, the current rate-limit wait. Off a terminal it writes nothing; with
 * `log`, it reports the same figures as a plain log line at most every `everyMs`.
 */
export function createProgress(
  ctx: CliContext,
  log?: (state: ProgressState, line: string) => void,
  everyMs = 10_000,
): Progress {
  const tty = ctx.stderr.isTTY === true && ctx.env.CI === undefined;
  const started = Date.now();
  let done = 0;
  let failed = 0;
  let total: number | undefined;
  let waitUntil = 0;
  let lastDraw = 0;
  let lastLog = started;
  const state = (now: number): ProgressState => ({
    done,
    failed,
    total,
    elapsedMs: now - started,
    waitMs: Math.max(0, waitUntil - now),
  });
  const draw = (force: boolean): void => {
    const now = Date.now();
    if (tty && (force || now - lastDraw >= 100)) {
      lastDraw = now;
      ctx.stderr.write(`\r\x1b[2K${progressLine(state(now))}`);
    } else if (!tty && log !== undefined && now - lastLog >= everyMs) {
      lastLog = now;
      log(state(now), progressLine(state(now)));
    }
  };
  return {
    event(e) {
      if (COUNTED.has(e.type)) done++;
      if (e.type === "failed") failed++;
      if (e.type === "progress") total = e.total;
      if (e.type === "rate_limited") waitUntil = Date.now() + e.waitMs;
      draw(e.type === "rate_limited");
    },
    done() {
      if (tty && lastDraw > 0) ctx.stderr.write("\r\x1b[2K");
    },
  };
}
