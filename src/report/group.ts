/** Items grouped by story, and counted by action, for every renderer. */
import type { Report, ReportAction, ReportItem } from "./types.js";

/** Skip reasons of items that are simply in step: summarised as a count, not listed. */
const IN_STEP = new Set(["unchanged", "echo"]);

/** Whether an item is merely unchanged (listed only in verbose reports). */
export function isUnchanged(item: ReportItem): boolean {
  return item.action === "skip" && IN_STEP.has(item.reason ?? "unchanged");
}

/**
 * A story and its tasks. `story` is undefined when the story itself has nothing to report (only
 * `storyTitle` is known) or for a task with no story, which then stands alone in `tasks`.
 */
export interface ItemGroup {
  readonly story?: ReportItem | undefined;
  readonly storyTitle?: string | undefined;
  readonly tasks: ReportItem[];
}

/** The items shown and the number left out as unchanged. */
export interface GroupedItems {
  readonly groups: readonly ItemGroup[];
  readonly unchanged: number;
}

/** Whether an item carries another job's or another tinyPM's marker (named only when verbose). */
export function isForeign(item: ReportItem): boolean {
  return item.action === "skip" && item.reason === "foreign";
}

/**
 * The foreign items in a report's totals: another job's or another tinyPM instance's copies on
 * the target, never created, updated or counted as this job's.
 */
export function foreignWords(n: number, target: string, verbose: boolean): string {
  return `${n} foreign (made on ${target} by another job or tinyPM, left alone${verbose ? "" : "; --verbose names them"})`;
}

/**
 * What a report counts apart from its listed items: foreign ones (the run summary counts them
 * among the unchanged) and linked ones a tiered read left out (in no summary count).
 */
export function leftOutCounts(report: Pick<Report, "items" | "tinypmRead">): {
  foreign: number;
  notRead: number;
} {
  return {
    foreign: report.items.filter(isForeign).length,
    notRead: report.tinypmRead?.notRead ?? 0,
  };
}

/** Linked items a tiered tinyPM read left out, in a report's totals. */
export function notReadWords(n: number): string {
  return `${n} not read this run (in closed iterations, in step when last read; \`sync --full\` reads them)`;
}

/**
 * Items grouped by story, in order of first appearance: a task joins the group of its
 * `storyTitle`; stories and tasks without one stand alone. Unchanged items are only counted
 * unless `verbose`.
 */
export function groupItems(items: readonly ReportItem[], verbose = false): GroupedItems {
  const groups: { story?: ReportItem; storyTitle?: string; tasks: ReportItem[] }[] = [];
  const byStory = new Map<string, (typeof groups)[number]>();
  let unchanged = 0;
  for (const item of items) {
    if (!verbose && isUnchanged(item)) {
      unchanged++;
      continue;
    }
    if (!verbose && isForeign(item)) continue;
    const title = item.kind === "story" ? item.title : item.storyTitle;
    if (title === undefined) {
      groups.push({ tasks: [item] });
      continue;
    }
    let group = byStory.get(title);
    if (group === undefined || (item.kind === "story" && group.story !== undefined)) {
      group = { storyTitle: title, tasks: [] };
      groups.push(group);
      byStory.set(title, group);
    }
    if (item.kind === "story") group.story = item;
    else group.tasks.push(item);
  }
  return { groups, unchanged };
}

/** The number of items per action (every action present, zeros included). */
export function countActions(items: readonly ReportItem[]): Record<ReportAction, number> {
  const counts: Record<ReportAction, number> = {
    create: 0,
    update: 0,
    adopt: 0,
    delete: 0,
    conflict: 0,
    failed: 0,
    skip: 0,
  };
  for (const item of items) counts[item.action]++;
  return counts;
}
