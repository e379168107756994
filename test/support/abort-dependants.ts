/**
 * The entries `AbortSignal.any` leaves on a source signal: Node keeps them in a set under a
 * private symbol (0 where a Node version has no such set). Read as a plain property, the set
 * being Node's own, not the test context's.
 */
export function abortDependants(signal: AbortSignal): number {
  const key = Object.getOwnPropertySymbols(signal).find(
    (s) => s.description === "kDependantSignals",
  );
  const set = key === undefined ? undefined : (signal as unknown as Record<symbol, unknown>)[key];
  const size = (set as { size?: unknown } | undefined)?.size;
  return typeof size === "number" ? size : 0;
}
