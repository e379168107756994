import { systemLabel } from "../../core/system-label.js";
import type { StaleAction } from "./stale.js";

/** How many stale actions a message names one by one (the rest are counted). */
const NAMED = 20;

/**
 * The stale actions of a plan in words: each item by kind, ids and title, then what changed
 * (`tinyPM title changed`, `GitHub labels changed`, `the link's base moved`, …).
 */
export function describeStale(
  stale: readonly StaleAction[],
  plan: { readonly targetSystem: string; readonly actions: readonly unknown[] },
): string {
  const target = systemLabel(plan.targetSystem);
  const lines = stale.slice(0, NAMED).map((s) => {
    const ids = [
      s.tinypmId === undefined ? undefined : `tinyPM ${s.tinypmId}`,
      s.targetId === undefined ? undefined : `${target} ${s.targetId}`,
    ].filter((x) => x !== undefined);
    return `${s.type} of ${s.kind} ${ids.join(" / ")} "${s.title}": ${s.changed.map((c) => changeWords(c, target)).join(", ")}`;
  });
  const more = stale.length > NAMED ? [`and ${stale.length - NAMED} more`] : [];
  return `${stale.length} of its ${plan.actions.length} actions depend on what changed since it was made: ${[...lines, ...more].join("; ")}.`;
}

function changeWords(change: string, target: string): string {
  if (change === "gone")
    return "no longer planned (the item is gone, or was linked or changed otherwise)";
  if (change === "base") return "the link's last synced base moved";
  if (change === "effect")
    return "what it would write differs (the mapping, the user matches or the iterations changed)";
  const [side, part] = change.split(".", 2);
  return `${side === "tinypm" ? "tinyPM" : target} ${part ?? ""} changed`;
}
