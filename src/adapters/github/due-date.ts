/**
 * Milestone due dates. GitHub keeps a calendar day only, stored as midnight US Pacific of the
 * Pacific day the sent instant falls on (`…T00:00:00Z` is still the day before in California).
 * We send noon UTC, which is the same calendar day everywhere from UTC−11 to UTC+11, and read
 * the day back in Pacific time.
 */

const pacific = new Intl.DateTimeFormat("en-CA", {
  timeZone: "America/Los_Angeles",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
});

/** The `due_on` to send for an iteration ending on `endDate` (`YYYY-MM-DD`). */
export function dueOnFor(endDate: string): string {
  return `${endDate}T12:00:00Z`;
}

/** The end date (`YYYY-MM-DD`) a milestone's `due_on` stands for: its day in US Pacific time. */
export function endDateOf(dueOn: string): string {
  const ms = Date.parse(dueOn);
  if (Number.isNaN(ms)) return dueOn.slice(0, 10);
  const p: Record<string, string> = {};
  for (const part of pacific.formatToParts(new Date(ms))) p[part.type] = part.value;
  return `${p.year ?? ""}-${p.month ?? ""}-${p.day ?? ""}`;
}
