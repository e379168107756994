import { systemLabel } from "../../core/system-label.js";
import { baseDeleted } from "./links.js";
import type { Side } from "./merge.js";
import type { LinkView, Plan } from "./plan-types.js";

/** A job's `maxDeletes`: a number of items, or a percentage of its links (`"10%"`). */
export type MaxDeletes = number | string;

/** The default `maxDeletes`: a tenth of the job's links… */
export const DEFAULT_MAX_DELETES = "10%";
/** …and never fewer than this many items, for a percentage. */
export const MIN_DELETE_LIMIT = 5;

const PERCENT = /^(\d+(?:\.\d+)?)%$/;

/** Whether a string is a `maxDeletes` percentage (`"10%"`, `"2.5%"`). */
export function isDeletePercent(text: string): boolean {
  return PERCENT.test(text.trim());
}

/**
 * How many linked items one run may delete or close on one side (pure). A number is the limit
 * itself; a percentage is that share of the job's live links, rounded down, and never below
 * {@link MIN_DELETE_LIMIT} (so a small job can still lose a few items in one run).
 */
export function deleteLimit(max: MaxDeletes | undefined, links: number): number {
  const value = max ?? DEFAULT_MAX_DELETES;
  if (typeof value === "number") return Math.max(0, Math.floor(value));
  const m = PERCENT.exec(value.trim());
  if (m === null) throw new Error(`maxDeletes "${value}" is neither a number nor a percentage`);
  const share = Math.floor((links * Number(m[1])) / 100 + 1e-9);
  return Math.max(MIN_DELETE_LIMIT, share);
}

/** What the deletion guard found in a plan (for the run's error and the reports). */
export interface DeleteGuard {
  /** The job's `maxDeletes` as configured (the default when absent). */
  readonly maxDeletes: MaxDeletes;
  /** The limit per side it gives for this job. */
  readonly limit: number;
  /** The job's live links (neither side already recorded as deleted). */
  readonly links: number;
  /** Linked items the plan would delete or close on each side (where the deletion is mirrored). */
  readonly planned: Readonly<Record<Side, number>>;
  /** The sides whose count is over the limit (empty: the guard lets the run through). */
  readonly over: readonly Side[];
  /** Over the limit, and let through by `--allow-deletes`. */
  readonly allowed: boolean;
}

/** The links that could still be deleted: neither side's deletion already recorded. */
export function liveLinks(links: readonly LinkView[]): number {
  return links.filter((l) => !baseDeleted(l, "tinypm") && !baseDeleted(l, "target")).length;
}

/**
 * Counts the linked items a plan would delete or close on each side — those gone from the other
 * side, mirrored by `onDelete: close|delete` (`ignore` writes nothing) — and compares each count
 * with the job's limit (pure).
 */
export function checkDeletes(
  plan: Plan,
  o: { maxDeletes?: MaxDeletes | undefined; links: number; allow?: boolean | undefined },
): DeleteGuard {
  const planned: Record<Side, number> = { tinypm: 0, target: 0 };
  for (const a of plan.actions) if (a.type === "delete" && a.mode !== "none") planned[a.side] += 1;
  const limit = deleteLimit(o.maxDeletes, o.links);
  const over = (["tinypm", "target"] as const).filter((s) => planned[s] > limit);
  return {
    maxDeletes: o.maxDeletes ?? DEFAULT_MAX_DELETES,
    limit,
    links: o.links,
    planned,
    over,
    allowed: over.length > 0 && o.allow === true,
  };
}

/** Whether the guard stops the run (over the limit on a side, not allowed). */
export function guardStops(g: DeleteGuard): boolean {
  return g.over.length > 0 && !g.allowed;
}

const CONTAINER: Record<string, string> = {
  github: "repository",
  jira: "project",
  tinypm: "project",
};

/**
 * What a run the guard stops says (pure): the count, the side, the limit, the likely causes and
 * what to do. `side` is where the deletions would be mirrored; the items vanished on the other.
 */
export function massDeleteWords(
  g: DeleteGuard,
  o: { job: string; targetSystem: string; onDelete: string; side: Side },
): { message: string; hint: string } {
  const count = g.planned[o.side];
  const on = systemLabel(o.side === "tinypm" ? "tinypm" : o.targetSystem);
  const gone = o.side === "tinypm" ? o.targetSystem : "tinypm";
  const goneName = systemLabel(gone);
  const container = CONTAINER[gone] ?? "project";
  const verb = o.onDelete === "delete" ? "delete" : "close";
  const configKey =
    gone === "tinypm"
      ? "tinypmProject"
      : gone === "github"
        ? "the target's owner and repo"
        : "the target's project";
  const message =
    `Job ${o.job}: ${count} of its ${g.links} linked items are gone from ${goneName}, and the run ` +
    `would ${verb} their ${count} counterparts on ${on} (onDelete: ${verb}) — more than the ` +
    `limit of ${g.limit} per run (maxDeletes ${JSON.stringify(g.maxDeletes)}). Nothing was ` +
    `written to tinyPM or ${systemLabel(o.targetSystem)}.`;
  const hint =
    `So many items vanishing at once usually means the ${goneName} ${container} was emptied or ` +
    `recreated, the config names the wrong ${container} (${configKey}), or the token lost ` +
    `access to it. Check the job's config and the ${container}, and see \`tinypm-sync plan ` +
    `--job ${o.job}\`. If the deletions are real, run once with --allow-deletes, or raise the ` +
    `job's maxDeletes.`;
  return { message, hint };
}
