import type { SyncEvent } from "../sync/events.js";
import type { CliContext } from "./context.js";
import { terminalOf } from "./terminal.js";
import { formatDuration as duration } from "../core/duration.js";
import { longestWait, waitLine, type OpenWait } from "./wait-words.js";

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
  /** Remaining known wait (rate limit, service's own limit, retry backoff), 0 when none. */
  readonly waitMs: number;
  /** The wait in words (`waiting for GitHub's hourly limit · resumes 14:05 (in 50 min)`). */
  readonly waitText?: string | undefined;
  /** Time since the phase began (read phases show it: the line moves every second). */
  readonly phaseMs?: number | undefined;
  /** Requests answered since the phase began. */
  readonly requests?: number | undefined;
  /** What the phase's read has found so far (`read_progress` events). */
  readonly read?: ReadSoFar | undefined;
  /**
   * The time left by the rate limits' windows the run's writes will meet (the `write_forecast`
   * event against the configured limits), and the limit that binds: the ETA is never below it.
   */
  readonly forecast?: { readonly leftMs: number; readonly boundBy: string } | undefined;
}

/** How long a run's writes take at the job's write limits, and which limit binds. */
export type WriteForecaster = (
  writes: Readonly<Record<string, number>>,
) => { readonly durationMs: number; readonly boundBy: string } | undefined;

/** Items a read has found so far; stories of how many where the read knows. */
export interface ReadSoFar {
  readonly items: number;
  readonly stories?: number | undefined;
  readonly storiesTotal?: number | undefined;
}

const BAR_WIDTH = 20;

/**
 * `[██████░░░░░░░░░░░░░░]  30% · creating tasks · 12/40 items · 3.1/s · ETA 9 s` on a terminal;
 * without the bar (`30% · creating tasks · …`) in log lines.
 */
export function progressLine(s: ProgressState, opts: { bar?: boolean } = {}): string {
  if (s.total === undefined && s.phase !== undefined) return readingLine(s);
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
  if (s.total !== undefined && s.done < s.total && (rate > 0 || s.forecast !== undefined)) {
    // The known wait is part of the time left: no item moves before it ends. The windows the
    // writes will meet are too: never less than the limits allow.
    const pace = rate > 0 ? ((s.total - s.done) / rate) * 1000 + s.waitMs : 0;
    const bound = s.forecast !== undefined && s.forecast.leftMs > pace ? s.forecast : undefined;
    parts.push(
      bound === undefined
        ? `ETA ${duration(pace)}`
        : `ETA ${duration(bound.leftMs)} (bound by ${bound.boundBy})`,
    );
  }
  if (s.waitText !== undefined) parts.push(s.waitText);
  else if (s.waitMs > 0) parts.push(`rate limit: waiting ${duration(s.waitMs)}`);
  return parts.join(" · ");
}

/**
 * Before any item is planned (reading, planning): what the phase counts, and its time, which
 * moves every second — `reading tinyPM · 4 s · 12 requests · 40/120 stories read (95 with their tasks)`.
 */
function readingLine(s: ProgressState): string {
  const parts = [s.phase ?? "", duration(Math.floor((s.phaseMs ?? 0) / 1000) * 1000)];
  const requests = s.requests ?? 0;
  parts.push(`${requests} ${requests === 1 ? "request" : "requests"}`);
  const r = s.read;
  if (r !== undefined) {
    parts.push(
      r.storiesTotal === undefined || r.stories === undefined
        ? `${r.items} ${r.items === 1 ? "item" : "items"} read`
        : `${r.stories}/${r.storiesTotal} stories read (${r.items} with their tasks)`,
    );
  }
  if (s.waitText !== undefined) parts.push(s.waitText);
  else if (s.waitMs > 0) parts.push(`rate limit: waiting ${duration(s.waitMs)}`);
  return parts.join(" · ");
}

export { duration };

const COUNTED = new Set<SyncEvent["type"]>(["created", "updated", "adopted", "deleted"]);
/** How often the terminal line is repainted even when nothing happens (the clock moves). */
export const REPAINT_MS = 500;

/**
 * A one-line progress display on a terminal (stderr): bar, percentage, phase, items done (of the
 * total once the engine reports one), rate, ETA (known waits included), the current wait in
 * words with its countdown; repainted twice a second, kept below the log lines (see
 * terminal.ts). Off a terminal it draws nothing; with `log`, it reports the same figures as a
 * plain log line at most every `everyMs` (waits are logged by `logEvent`, one line each way).
 * Time spent waiting does not count against the items-per-second rate.
 */
export function createProgress(
  ctx: CliContext,
  log?: (state: ProgressState, line: string) => void,
  everyMs = 10_000,
  /** The job's write limits as a forecaster (plan-estimate.ts); none: no forecast. */
  forecaster?: WriteForecaster,
): Progress {
  const terminal = terminalOf(ctx);
  const started = Date.now();
  let workStarted: number | undefined;
  let phase: string | undefined;
  let phaseStarted = started;
  let requests = 0;
  let read: ReadSoFar | undefined;
  let done = 0;
  let failed = 0;
  let total: number | undefined;
  /** Open gate waits by system (a system waits for one thing at a time). */
  const waits = new Map<string, OpenWait>();
  /** Time with at least one wait open, for the rate: closed spans plus the open one's start. */
  let waitedMs = 0;
  let waitingSince: number | undefined;
  let lastDraw = 0;
  let lastLog = started;
  let forecast: { endsAt: number; boundBy: string } | undefined;
  const state = (now: number): ProgressState => {
    const wait = longestWait(waits.values());
    const from = workStarted ?? started;
    const waiting =
      waitedMs + (waitingSince === undefined ? 0 : now - Math.max(waitingSince, from));
    return {
      phase,
      done,
      failed,
      total,
      elapsedMs: Math.max(0, now - from - waiting),
      waitMs: Math.max(0, (wait?.until ?? 0) - now),
      waitText: wait === undefined ? undefined : waitLine(wait, now),
      phaseMs: now - phaseStarted,
      requests,
      read,
      forecast:
        forecast === undefined
          ? undefined
          : { leftMs: Math.max(0, forecast.endsAt - now), boundBy: forecast.boundBy },
    };
  };
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
      if (changedPhase) {
        phaseStarted = Date.now();
        requests = 0;
        read = undefined;
      }
      if (e.type === "request") requests++;
      if (e.type === "write_forecast" && forecaster !== undefined) {
        const f = forecaster(e.writes);
        forecast =
          f === undefined ? undefined : { endsAt: Date.now() + f.durationMs, boundBy: f.boundBy };
      }
      if (e.type === "read_progress")
        read = { items: e.items, stories: e.stories, storiesTotal: e.storiesTotal };
      if (e.type === "wait_start") {
        if (waits.size === 0) waitingSince = Date.now();
        waits.set(e.system, {
          system: e.system,
          reason: e.reason,
          until: e.until,
          operation: e.operation,
        });
      }
      if (e.type === "wait_end" && waits.delete(e.system) && waits.size === 0) {
        const now = Date.now();
        if (waitingSince !== undefined)
          waitedMs += now - Math.max(waitingSince, workStarted ?? started);
        waitingSince = undefined;
      }
      const waitChanged = e.type === "wait_start" || e.type === "wait_end";
      // A read's last count is shown even when the next phase follows at once.
      const readDone = e.type === "read_progress" && e.final === true;
      draw(changedPhase || waitChanged || readDone);
    },
    done() {
      if (timer !== undefined) clearInterval(timer);
      terminal.clearStatus();
    },
  };
}
