/**
 * Failures the gate already retried as far as its policy allows. The lanes rerun a unit that is
 * safe to repeat after an ambiguous failure the gate could not retry (a create's lost answer),
 * but never after one it already retried: retries would multiply (6 × 6 attempts on a dead server).
 */
const spent = new WeakSet<object>();

/** Marks `error` as retried to the end by the gate. */
export function markRetriesSpent(error: unknown): void {
  if (typeof error === "object" && error !== null) spent.add(error);
}

/** Whether the gate already retried `error`'s request as far as its policy allows. */
export function retriesSpent(error: unknown): boolean {
  return typeof error === "object" && error !== null && spent.has(error);
}
