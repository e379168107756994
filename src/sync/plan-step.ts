import type { SystemName } from "../core/model.js";
import type { PlanInput, PlanJob } from "./plan/plan-input.js";
import type { Plan } from "./plan/plan-types.js";
import { planDeletions, planActions } from "./plan/plan.js";
import type { RunRead } from "./read/run-read.js";
import { withStatusUnknown } from "./read/status-touched.js";
import type { Settled } from "./settle/settle.js";

/**
 * The plan step (pure): the one plan of a run, from what it read and what settling left. A
 * target status set back since the last sync is an edit too: where the target's history showed
 * one (read/status-touched.ts), the pair's status base is unknown.
 */
export function planRun(
  job: PlanJob,
  targetSystem: SystemName,
  read: RunRead,
  settled: Settled,
  now: Date,
): Plan {
  return planActions({
    job,
    mapping: read.mapping,
    targetSystem,
    tinypm: read.tinypm,
    target: { ...read.target, items: settled.targetItems },
    links: withStatusUnknown(settled.links, read.statusTouched),
    resolved: read.resolved,
    openConflicts: read.openConflicts,
    blockless: settled.blockless,
    held: settled.held,
    claimed: settled.claimed,
    now,
  });
}

/**
 * The deletions the read calls for against the stored links (pure), before anything is settled:
 * what the deletion guard counts before the run's first write. Settling adds links only for items
 * read on both sides, so it never adds a deletion; the guard looks again at the run's plan.
 */
export function readDeletions(
  job: PlanJob,
  targetSystem: SystemName,
  read: RunRead,
  now: Date,
): Plan {
  const input: PlanInput = {
    job,
    mapping: read.mapping,
    targetSystem,
    tinypm: read.tinypm,
    target: read.target,
    links: read.links,
    resolved: read.resolved,
    now,
  };
  return { job: job.name, targetSystem, actions: planDeletions(input) };
}
