/**
 * Milestone due dates as GitHub keeps them: only a calendar day, stored as midnight US Pacific
 * of the Pacific day the given instant falls on (DST-aware). `2030-06-30T00:00:00Z` is still
 * 29 June in California, so it comes back as `2030-06-29T07:00:00Z`; `2030-06-30T12:00:00Z`
 * comes back as `2030-06-30T07:00:00Z` (`T08:00:00Z` in winter).
 */

const ZONE = "America/Los_Angeles";

const parts = new Intl.DateTimeFormat("en-US", {
  timeZone: ZONE,
  hourCycle: "h23",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});

/** The Pacific wall-clock reading of an instant, as if it were UTC (epoch ms). */
function pacificWallClock(ms: number): number {
  const p: Record<string, number> = {};
  for (const part of parts.formatToParts(new Date(ms))) {
    if (part.type !== "literal") p[part.type] = Number(part.value);
  }
  return Date.UTC(p.year ?? 0, (p.month ?? 1) - 1, p.day ?? 1, p.hour, p.minute, p.second);
}

/** `YYYY-MM-DD`: the day in US Pacific time on which the instant falls. */
export function pacificDay(ms: number): string {
  return new Date(pacificWallClock(ms)).toISOString().slice(0, 10);
}

/** The instant (epoch ms) of 00:00 US Pacific on `day` (`YYYY-MM-DD`). */
export function pacificMidnight(day: string): number {
  const wall = Date.parse(`${day}T00:00:00Z`);
  // 08:00 UTC is 00:00 PST or 01:00 PDT: before the 02:00 switch, so it has midnight's offset.
  const probe = wall + 8 * 3_600_000;
  const offset = pacificWallClock(probe) - probe;
  return wall - offset;
}

/** What GitHub stores for a `due_on` instant: midnight Pacific of its Pacific day. */
export function normaliseDueOn(ms: number): number {
  return pacificMidnight(pacificDay(ms));
}
