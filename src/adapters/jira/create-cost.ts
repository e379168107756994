/**
 * What Jira's creates cost in write requests, as `createItems` (./create.ts) makes them, from the
 * site's statuses alone: a dry run cannot list a workflow's transitions before an issue exists.
 * Pure; the adapter's `createWriteCost` reads the statuses and asks here. It assumes each walk
 * goes straight to its status: a walk that explores first costs more (after a probe that went to
 * In Progress, the next probe's walk to Done tries Rejected and back first: 2 transitions more).
 */
import type { CreateOutline } from "../../core/tracker.js";
import { BULK_CREATE_MAX, MAX_PROBES } from "./create.js";

/** A status of the site and its category (`new`, `indeterminate`, `done`), in the site's order. */
export interface StatusOutline {
  readonly name: string;
  readonly category: string;
}

/**
 * The transitions from the initial status to each status, as a workflow usually runs: the first
 * `new` status is the initial one; the in-progress statuses follow one another in the site's
 * order; the first `done` status comes after the last of them; any other status (Rejected, Won't
 * Do) is one transition away.
 */
export function statusDepths(outline: readonly StatusOutline[]): Map<string, number> {
  const depths = new Map<string, number>();
  const initial = outline.find((s) => s.category === "new");
  const chain = outline.filter((s) => s.category === "indeterminate");
  chain.forEach((s, i) => depths.set(s.name.toLowerCase(), i + 1));
  const done = outline.find((s) => s.category === "done");
  if (done !== undefined) depths.set(done.name.toLowerCase(), chain.length + 1);
  for (const s of outline)
    if (!depths.has(s.name.toLowerCase())) depths.set(s.name.toLowerCase(), 1);
  if (initial !== undefined) depths.set(initial.name.toLowerCase(), 0);
  return depths;
}

/**
 * The create calls and transitions for the drafts of one issue type, in plan order. While the
 * workflow is unknown the adapter creates one draft alone (its first, when they go to more than
 * one status), then one per status that more than one draft goes to and whose path is not known
 * yet (at most 8): a draft created alone makes every transition itself, the others go 50 to a bulk
 * call whose create carries the first transition when the path is known. A walk to a status
 * learns the transitions out of every status on its way.
 */
export function jiraCreateCost(
  statuses: readonly string[],
  depthOf: (status: string) => number,
): { calls: number; transitions: number } {
  if (statuses.length === 0) return { calls: 0, transitions: 0 };
  const counts = new Map<string, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  const probed = new Set<number>();
  const probedStatus = new Set<string>();
  // Statuses this many transitions away have a known path (the initial one's transitions known).
  let known = -1;
  const probe = (i: number): void => {
    const status = statuses[i] ?? "";
    probed.add(i);
    probedStatus.add(status);
    known = Math.max(known, depthOf(status) + 1, 1);
  };
  if (counts.size > 1) {
    probe(0);
    for (let i = 1; i < statuses.length && probed.size < MAX_PROBES; i++) {
      const status = statuses[i] ?? "";
      if (probedStatus.has(status) || depthOf(status) <= known) continue;
      if ((counts.get(status) ?? 0) > 1) probe(i);
    }
  }
  let transitions = 0;
  statuses.forEach((status, i) => {
    const depth = depthOf(status);
    const carried = !probed.has(i) && known >= 0 && depth <= known && depth > 0;
    transitions += carried ? depth - 1 : depth;
  });
  return {
    calls: probed.size + Math.ceil((statuses.length - probed.size) / BULK_CREATE_MAX),
    transitions,
  };
}

/**
 * The write requests creating `creates` (in plan order) costs: each kind's creates go in their
 * own `createItems` call (stories before their tasks), each costing its create calls plus the
 * transitions its issues make towards their statuses. `outline` empty (the statuses unread):
 * the create calls alone.
 */
export function createWriteCost(
  creates: readonly CreateOutline[],
  outline: readonly StatusOutline[],
): number {
  const depths = statusDepths(outline);
  const depthOf = (status: string): number => depths.get(status.toLowerCase()) ?? 0;
  let writes = 0;
  for (const kind of ["story", "task"] as const) {
    const cost = jiraCreateCost(
      creates.filter((c) => c.kind === kind).map((c) => c.status),
      depthOf,
    );
    writes += cost.calls + cost.transitions;
  }
  return writes;
}
