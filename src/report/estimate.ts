import type { ReportDurationEstimate } from "./types.js";
import { aboutDuration } from "../core/duration.js";
import { systemLabel } from "../core/system-label.js";

/** The write windows of one system, as configured (or the vendor's published defaults). */
export interface WriteLimits {
  readonly writesPerMinute: number;
  readonly writesPerHour: number;
}

const WINDOWS = [
  { key: "writesPerMinute", ms: 60_000, per: "minute" },
  { key: "writesPerHour", ms: 3_600_000, per: "hour" },
] as const;

const label = systemLabel;

/**
 * How long `writes` writes take, and how much each limit held them back. The per-minute limit
 * is a steady pace (writes are spread, never sent in bursts: GitHub's secondary limits punish
 * bursts), one slot of `60 s / writesPerMinute` per write; the per-hour limit is a sliding window
 * (write k waits for write k - writesPerHour to be an hour old).
 */
export function writeSchedule(
  writes: number,
  limits: WriteLimits,
): { lastMs: number; delayMs: Record<"writesPerMinute" | "writesPerHour", number> } {
  const slot = Number.isFinite(limits.writesPerMinute) ? 60_000 / limits.writesPerMinute : 0;
  const hourly = Math.max(1, Math.floor(limits.writesPerHour));
  const at = new Float64Array(Math.max(0, writes));
  const delayMs = { writesPerMinute: 0, writesPerHour: 0 };
  let end = 0;
  for (let k = 0; k < writes; k++) {
    const paced = end;
    const windowFree = k >= hourly ? (at[k - hourly] ?? 0) + 3_600_000 : 0;
    const start = Math.max(paced, windowFree);
    delayMs.writesPerHour += start - paced;
    delayMs.writesPerMinute += slot;
    at[k] = start;
    end = start + slot;
  }
  return { lastMs: end, delayMs };
}

/** Below this, a migration is quick enough that the import API is not worth a hint. */
export const IMPORT_HINT_FROM_MS = 10 * 60_000;

/**
 * How long a dry run's writes would take at the configured write limits (systems are written
 * one after another, so their times add up), which limit binds, and what would help: GitHub's
 * issue import API when a GitHub migration of ten minutes or more is bound by the
 * content-creation limits.
 * Undefined when nothing would be written or no limit holds anything back.
 */
export function estimateDuration(o: {
  readonly writes: Readonly<Record<string, number>>;
  readonly limits: Readonly<Record<string, WriteLimits>>;
  readonly mode: "migrate" | "sync";
  /** The GitHub target already creates through the import API. */
  readonly importApi?: boolean | undefined;
}): ReportDurationEstimate | undefined {
  let total = 0;
  let worst: { system: string; window: (typeof WINDOWS)[number]; delay: number } | undefined;
  for (const [system, n] of Object.entries(o.writes)) {
    const limits = o.limits[system];
    if (limits === undefined || n <= 0) continue;
    const s = writeSchedule(n, limits);
    total += s.lastMs;
    for (const w of WINDOWS) {
      const delay = s.delayMs[w.key];
      if (delay > 0 && (worst === undefined || delay > worst.delay))
        worst = { system, window: w, delay };
    }
  }
  if (worst === undefined) return undefined;
  const limit = o.limits[worst.system]?.[worst.window.key] ?? 0;
  const writesWord = worst.system === "github" ? "content writes" : "writes";
  // Digits grouped: a lifted limit reads "1,000,000,000", not "1000000000".
  const shown = limit.toLocaleString("en-US");
  const boundBy = `${label(worst.system)}'s ${shown} ${writesWord} per ${worst.window.per}`;
  const importHelps =
    worst.system === "github" &&
    o.mode === "migrate" &&
    o.importApi !== true &&
    total >= IMPORT_HINT_FROM_MS;
  return {
    durationMs: Math.round(total),
    boundBy,
    text: `${aboutDuration(total)}, bound by ${boundBy}`,
    ...(importHelps
      ? {
          hint: "GitHub's issue import API sends each issue with its comments in one request and is not held to the content-creation limits: set `importApi: true` on the GitHub target if the token has admin rights on the repository.",
        }
      : {}),
  };
}

export { aboutDuration };
