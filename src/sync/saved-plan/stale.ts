import type { Plan, PlanAction } from "../plan/plan-types.js";
import { changedParts } from "./digest.js";
import { isPlannedWrite, savedAction, savedActionKey, type SavedAction } from "./saved-action.js";

/** One saved action that no longer holds: the item, and what changed on which side. */
export interface StaleAction {
  readonly key: string;
  readonly type: SavedAction["type"];
  readonly kind: string;
  readonly title: string;
  readonly tinypmId?: string | undefined;
  readonly targetId?: string | undefined;
  /** What changed: `tinypm.title`, `target.labels`, `base`, `effect`, or `gone`. */
  readonly changed: readonly string[];
}

/** A saved plan checked against a fresh one made from what the systems and the state hold now. */
export interface PlanCheck {
  /** The keys of the saved actions to carry out (they hold as they were saved). */
  readonly run: ReadonlySet<string>;
  /** Saved actions an earlier, interrupted `apply` of this plan carried out already. */
  readonly done: readonly SavedAction[];
  readonly stale: readonly StaleAction[];
  /** Writes the fresh plan would make that the saved one does not: left for a later run. */
  readonly outside: number;
}

/**
 * Compares each saved action with the fresh plan's action of the same key: the digests of what it
 * read (each item part by part, the link's base) and of what it would write must be the same.
 * A saved action the fresh plan no longer has is stale, unless an earlier `apply` of this plan
 * began (`resuming`): then it was carried out before that apply stopped.
 */
export function checkPlan(
  saved: readonly SavedAction[],
  fresh: Plan,
  resuming: boolean,
): PlanCheck {
  const now = new Map<string, SavedAction>();
  for (const a of fresh.actions) if (isPlannedWrite(a)) now.set(savedActionKey(a), savedAction(a));
  const run = new Set<string>();
  const done: SavedAction[] = [];
  const stale: StaleAction[] = [];
  for (const s of saved) {
    const f = now.get(s.key);
    if (f === undefined) {
      if (resuming) done.push(s);
      else stale.push(staleOf(s, ["gone"]));
      continue;
    }
    const changed = [
      ...changedParts(s.reads.tinypm ?? {}, f.reads.tinypm ?? {}).map((p) => `tinypm.${p}`),
      ...changedParts(s.reads.target ?? {}, f.reads.target ?? {}).map((p) => `target.${p}`),
      ...(s.reads.base === f.reads.base ? [] : ["base"]),
      ...(s.effect === f.effect ? [] : ["effect"]),
    ];
    if (changed.length > 0) stale.push(staleOf(s, changed));
    else run.add(s.key);
  }
  const keys = new Set(saved.map((s) => s.key));
  const outside = [...now.keys()].filter((k) => !keys.has(k)).length;
  return { run, done, stale, outside };
}

/** The fresh plan cut down to the saved actions that hold: nothing else is carried out. */
export function restrictPlan(fresh: Plan, run: ReadonlySet<string>): Plan {
  const keep = (a: PlanAction): boolean => isPlannedWrite(a) && run.has(savedActionKey(a));
  return { ...fresh, actions: fresh.actions.filter(keep) };
}

function staleOf(s: SavedAction, changed: string[]): StaleAction {
  return {
    key: s.key,
    type: s.type,
    kind: s.kind,
    title: s.title,
    tinypmId: s.tinypmId,
    targetId: s.targetId,
    changed,
  };
}
