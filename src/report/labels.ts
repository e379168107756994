/** Names people read in every format: systems, sides, actions, ids. */
import type {
  Report,
  ReportAction,
  ReportConflict,
  ReportFieldChange,
  ReportItem,
} from "./types.js";
import { formatValue } from "./values.js";
import { systemLabel } from "../core/system-label.js";
import { formatDuration } from "../core/duration.js";

export { systemLabel };

/** The target's display name: the caller's `targetName`, else the report's target system. */
export function targetLabel(report: Report, targetName?: string): string {
  return targetName ?? systemLabel(report.target);
}

/** The side a change writes, by name (`→ GitHub`). */
export function sideLabel(side: ReportFieldChange["toSide"], target: string): string {
  return side === "tinypm" ? "tinyPM" : target;
}

/** Every action, in the order reports list them. */
export const ACTIONS: readonly ReportAction[] = [
  "create",
  "update",
  "adopt",
  "delete",
  "conflict",
  "failed",
  "skip",
];

/** Section titles per action. */
export const ACTION_TITLES: Readonly<Record<ReportAction, string>> = {
  create: "Create",
  update: "Update",
  adopt: "Adopt",
  delete: "Delete",
  conflict: "Conflict",
  failed: "Failed",
  skip: "Skip",
};

/** `#12` for numeric ids, the key itself otherwise (`WID-12`). */
export function idLabel(id: string): string {
  return /^\d+$/.test(id) ? `#${id}` : id;
}

/**
 * An item on tinyPM's side, by kind: `tinyPM story #12`, `tinyPM task #12` — tinyPM numbers
 * stories and tasks apart, so `#1` alone names two items.
 */
export function tinypmLabel(item: Pick<ReportItem, "kind" | "tinypmId">): string {
  return item.tinypmId === undefined ? "tinyPM" : `tinyPM ${item.kind} ${idLabel(item.tinypmId)}`;
}

/**
 * Where an item lives and which way it goes: `tinyPM story #12 → GitHub` for a create,
 * `tinyPM story #13 ⇄ GitHub #34` for a linked pair.
 */
export function itemPlaces(item: ReportItem, target: string): string {
  const tinypm = tinypmLabel(item);
  const other = item.targetId === undefined ? target : `${target} ${idLabel(item.targetId)}`;
  if (item.direction === "to-target") return `${tinypm} → ${other}`;
  if (item.direction === "to-tinypm") return `${other} → ${tinypm}`;
  if (item.tinypmId !== undefined && item.targetId !== undefined) return `${tinypm} ⇄ ${other}`;
  return item.tinypmId !== undefined ? tinypm : item.targetId !== undefined ? other : "";
}

/** How a conflict ended: parked for a person, or which side won. */
export function resolutionLabel(resolution: ReportConflict["resolution"], target: string): string {
  switch (resolution) {
    case "parked":
      return "parked (conflicts resolve)";
    case "tinypm":
      return "tinyPM wins";
    case "target":
      return `${target} wins`;
  }
}

/**
 * `kept on GitHub: title, labels` (a person's edits a one-way `migrate` left on the target), or
 * `""` when there are none.
 */
export function keptLabel(item: ReportItem, target: string): string {
  const kept = item.kept ?? [];
  return kept.length === 0 ? "" : `kept on ${target}: ${kept.join(", ")}`;
}

/** `2 comments, 1 time entry`, or `""` when there are none. */
export function extrasLabel(item: ReportItem): string {
  const parts: string[] = [];
  if (item.comments > 0) parts.push(plural(item.comments, "comment"));
  if (item.timeEntries > 0) parts.push(plural(item.timeEntries, "time entry", "time entries"));
  return parts.join(", ");
}

/** `1 pause`, `2 pauses`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The heading of a report: `Sync`, `Migration`, or `Sync plan` for a dry run. */
export function reportTitle(report: Report): string {
  const name = report.mode === "sync" ? "Sync" : "Migration";
  return report.dryRun ? `${name} plan` : name;
}

/** `4 s`, `2 min 5 s`, or undefined when a time does not parse. */
export function durationLabel(report: Report): string | undefined {
  const ms = Date.parse(report.finishedAt) - Date.parse(report.startedAt);
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  return formatDuration(Math.round(ms / 1000) * 1000);
}

/**
 * What a create writes, as one line: `status "open" · labels "bug", "ui" · milestone "S1"`;
 * `""` when the report lists nothing for it.
 */
export function writesLabel(item: ReportItem, max = 160): string {
  return (item.writes ?? []).map((w) => `${w.field} ${formatValue(w.value, { max })}`).join(" · ");
}

/** `would write` in a dry run, `wrote` after a run. */
export function writesVerb(report: Report): string {
  return report.dryRun ? "would write" : "wrote";
}

/** A link for people: which side, and where. */
export interface ItemLink {
  readonly label: string;
  readonly url: string;
}

/**
 * An item's links, tinyPM first, labelled by side (`GitHub #34`); only http(s) addresses, so a
 * crafted URL can never run script in the HTML report or hide a scheme in Markdown.
 */
export function itemLinks(item: ReportItem, target: string): ItemLink[] {
  const out: ItemLink[] = [];
  const add = (label: string, url: string | undefined): void => {
    if (url !== undefined && /^https?:\/\/[^\s]+$/i.test(url)) out.push({ label, url });
  };
  const tinypm = tinypmLabel(item);
  add(item.kind === "task" ? `${tinypm} (on its story's page)` : tinypm, item.links?.tinypm);
  add(
    item.targetId === undefined ? target : `${target} ${idLabel(item.targetId)}`,
    item.links?.target,
  );
  return out;
}
