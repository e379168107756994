import type { EngineOptions } from "./run-options.js";

/** The scope of a run's import claims: the target's location, or the system's default. */
export function claimLocation(o: Pick<EngineOptions, "targetSystem" | "targetLocation">): string {
  return o.targetLocation ?? `${o.targetSystem}:default`;
}
