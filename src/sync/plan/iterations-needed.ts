import type { PlanAction } from "./plan-types.js";

/** The tinyPM iteration names the run ensures on the target before its creates. */
export function iterationsNeeded(actions: readonly PlanAction[]): Set<string> {
  const names = new Set<string>();
  for (const a of actions) {
    if (a.type === "create" && a.toSide === "target" && a.source.iteration)
      names.add(a.source.iteration.name);
    if (a.type === "update" && a.tinypmItem.iteration && a.targetSet.iteration !== undefined)
      names.add(a.tinypmItem.iteration.name);
  }
  return names;
}
