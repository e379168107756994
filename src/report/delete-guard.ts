import type { Report } from "./types.js";

/** What every report says about the deletion guard, when a side is over the job's limit. */
export interface GuardWords {
  /** The run stops (or, for a dry run, would stop): nothing is written. */
  readonly stops: boolean;
  readonly text: string;
  readonly hint?: string | undefined;
}

/**
 * The deletion guard in words (absent when no side is over `maxDeletes`): a dry run says that
 * the real run would stop and why; a run let through by `--allow-deletes` says so.
 */
export function deleteGuardWords(report: Report): GuardWords | undefined {
  const g = report.deleteGuard;
  if (g === undefined || g.over.length === 0) return undefined;
  const message = g.message ?? `more linked items deleted or closed than the limit of ${g.limit}`;
  if (g.allowed)
    return {
      stops: false,
      text: `Deletion guard: over the limit of ${g.limit} (maxDeletes ${JSON.stringify(g.maxDeletes)}), let through by --allow-deletes. ${message}`,
    };
  const lead = report.dryRun
    ? "Deletion guard: a real sync or migrate would stop here and write nothing (mass_delete, exit 3). "
    : "Deletion guard: the run stopped (mass_delete). ";
  return { stops: true, text: lead + message, hint: g.hint };
}
