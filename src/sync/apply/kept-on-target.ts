import type { Snapshot } from "../plan/snapshot.js";

/**
 * The target's base with the time entries a one-way `migrate` kept on the target at their old
 * base value (absent, for a new entry): taken into the base, a later `sync` would find them
 * already synced and never carry them to tinyPM.
 */
export function keepTargetTime(now: Snapshot, base: Snapshot, keys: readonly string[]): Snapshot {
  if (keys.length === 0) return now;
  const kept = new Set(keys);
  const entries = Object.entries(now.timeEntries).filter(([key]) => !kept.has(key));
  for (const key of keys) {
    const was = base.timeEntries[key];
    if (was !== undefined) entries.push([key, was]);
  }
  return { ...now, timeEntries: Object.fromEntries(entries) };
}
