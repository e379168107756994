import type { LinkView, Plan } from "./plan/plan-types.js";
import { actionIds, itemKey } from "./outcome.js";

/**
 * Linked items no action of the plan names (pure): those a tiered read left out (closed
 * iterations not read this run). They are in step as far as the state knows, and counted so that a
 * run's totals account for every linked item.
 */
export function linkedNotRead(links: readonly LinkView[], plan: Plan): number {
  const tinypm = new Set<string>();
  const target = new Set<string>();
  for (const a of plan.actions) {
    const { tinypmId, targetId } = actionIds(a);
    if (tinypmId !== undefined) tinypm.add(itemKey(a.kind, tinypmId));
    if (targetId !== undefined) target.add(itemKey(a.kind, targetId));
  }
  return links.filter(
    (l) => !tinypm.has(itemKey(l.kind, l.tinypmId)) && !target.has(itemKey(l.kind, l.targetId)),
  ).length;
}
