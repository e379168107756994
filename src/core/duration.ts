// Durations as people write and read them: one grammar for the CLI's flags and the config's
// schedules, one formatter for progress lines, waits, outages and reports.

/** `500ms`, `30s`, `5m`, `1.5h`: a number and its unit. */
export const DURATION_PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$/;

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** What a duration such as `90s`, `5m` or `1h` lasts, in milliseconds; undefined if malformed. */
export function durationMs(text: string): number | undefined {
  const m = DURATION_PATTERN.exec(text.trim());
  if (m === null) return undefined;
  return Number(m[1]) * (UNIT_MS[m[2] ?? ""] ?? 1000);
}

/** `45 s`, `3 min 5 s`, `2 h 10 min` (seconds rounded up: a wait is never shown shorter). */
export function formatDuration(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** `about 13 min`, `about 1 h 3 min`, `under a minute`: an estimate, to the minute. */
export function aboutDuration(ms: number): string {
  if (ms < 60_000) return "under a minute";
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `about ${minutes} min`;
  const h = Math.floor(minutes / 60);
  return `about ${h} h${minutes % 60 === 0 ? "" : ` ${minutes % 60} min`}`;
}
