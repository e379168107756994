/**
 * The Markdown report, to paste into a pull request or an issue: a summary table, a section per
 * action, field diffs as tables, long lists folded in `<details>`. Every title is escaped and
 * `@mentions` are neutralised, so pasting notifies no one.
 */
import { tinypmReadLine } from "./tinypm-read.js";
import { deleteGuardWords } from "./delete-guard.js";
import { escapeMarkdown as md, markdownCode } from "./escape.js";
import {
  foreignWords,
  groupItems,
  isForeign,
  isUnchanged,
  leftOutCounts,
  notReadWords,
} from "./group.js";
import {
  ACTION_TITLES,
  ACTIONS,
  durationLabel,
  extrasLabel,
  keptLabel,
  itemLinks,
  itemPlaces,
  reportTitle,
  resolutionLabel,
  sideLabel,
  systemLabel,
  targetLabel,
  writesLabel,
  writesVerb,
} from "./labels.js";
import { hasDiff, richLine, shortened } from "./rich-text.js";
import type { Report, ReportAction, ReportDescription, ReportItem } from "./types.js";
import { formatValue } from "./values.js";

/** Options of {@link renderMarkdown}. */
export interface MarkdownOptions {
  /** List unchanged items too (folded). @default false */
  readonly verbose?: boolean | undefined;
  /** The target's display name. @default from the report's target */
  readonly targetName?: string | undefined;
  /**
   * The longest report wanted, in characters: long sections list fewer items until it fits.
   * @default 65536 (GitHub's limit for an issue, pull request or comment body)
   */
  readonly maxLength?: number | undefined;
}

/** GitHub refuses issue, pull-request and comment bodies longer than this. */
export const GITHUB_BODY_LIMIT = 65_536;

/** Items listed per section, tried in turn until the report fits in `maxLength`. */
const LIMITS = [Number.POSITIVE_INFINITY, 500, 100, 20, 5];

/** Sections with more entries than this are folded in `<details>`. */
const FOLD_AFTER = 10;

const cell = (v: Parameters<typeof formatValue>[0]): string => md(formatValue(v));

/**
 * A report as GitHub-flavoured Markdown (ends with a newline), short enough to paste: when it
 * would exceed `maxLength`, each section lists its first items and counts the rest.
 */
export function renderMarkdown(report: Report, opts: MarkdownOptions = {}): string {
  const max = opts.maxLength ?? GITHUB_BODY_LIMIT;
  let text = "";
  for (const limit of LIMITS) {
    text = renderWithLimit(report, opts, limit);
    if (text.length <= max) break;
  }
  return text;
}

function renderWithLimit(report: Report, opts: MarkdownOptions, limit: number): string {
  const target = targetLabel(report, opts.targetName);
  const verbose = opts.verbose ?? false;
  // Parts joined at the end (no push(...lines): a section can hold more lines than a call's arguments).
  const parts: string[][] = [header(report, target), summary(report)];
  for (const action of ACTIONS) {
    const items = report.items.filter(
      (i) => i.action === action && (verbose || (!isUnchanged(i) && !isForeign(i))),
    );
    if (items.length > 0)
      parts.push(section({ action, items, target, limit, verb: writesVerb(report) }));
  }
  const unchanged = report.items.filter(isUnchanged).length;
  if (!verbose && unchanged > 0)
    parts.push([`_${unchanged} unchanged item${unchanged === 1 ? "" : "s"} not listed._`, ""]);
  const { foreign, notRead } = leftOutCounts(report);
  if (foreign > 0) parts.push([`_${md(foreignWords(foreign, target, verbose))}._`, ""]);
  if (notRead > 0) parts.push([`_${md(notReadWords(notRead))}._`, ""]);
  parts.push(users(report, target), apiCost(report), notes(report));
  return `${parts.flat().join("\n").trimEnd()}\n`;
}

function header(report: Report, target: string): string[] {
  const took = durationLabel(report);
  const when = `${md(report.startedAt)} → ${md(report.finishedAt)}${took === undefined ? "" : ` (${took})`}`;
  return [
    `## ${reportTitle(report)}: ${md(report.job)} (tinyPM and ${md(target)})`,
    "",
    `${report.dryRun ? "**Dry run**: nothing was written. " : ""}Run ${md(report.runId)}, ${when}.`,
    "",
    ...guardLines(report),
  ];
}

function guardLines(report: Report): string[] {
  const guard = deleteGuardWords(report);
  if (guard === undefined) return [];
  const text = guard.stops ? `> **${md(guard.text)}**` : `> ${md(guard.text)}`;
  return [text, ...(guard.hint === undefined ? [] : [">", `> Hint: ${md(guard.hint)}`]), ""];
}

function summary(report: Report): string[] {
  const s = report.summary;
  const { foreign, notRead } = leftOutCounts(report);
  const extra: [string, number][] = [
    ...(foreign > 0 ? [["Foreign (left alone)", foreign] as [string, number]] : []),
    ...(notRead > 0 ? [["Not read this run", notRead] as [string, number]] : []),
  ];
  const unchanged = Math.max(0, s.unchanged - foreign);
  return [
    `| Created | Updated | Unchanged | Conflicts | Failed | Deleted |${extra.map(([l]) => ` ${l} |`).join("")}`,
    `| ---: | ---: | ---: | ---: | ---: | ---: |${extra.map(() => " ---: |").join("")}`,
    `| ${s.created} | ${s.updated} | ${unchanged} | ${s.conflicts} | ${s.failed} | ${s.deleted} |${extra.map(([, n]) => ` ${n} |`).join("")}`,
    "",
  ];
}

interface SectionInput {
  readonly action: ReportAction;
  readonly items: readonly ReportItem[];
  readonly target: string;
  /** Items listed at most; the others are counted. */
  readonly limit: number;
  /** `would write` or `wrote`. */
  readonly verb: string;
}

function section({ action, items, target, limit, verb }: SectionInput): string[] {
  const ordered = groupItems(items, true).groups.flatMap((g) =>
    g.story ? [g.story, ...g.tasks] : g.tasks,
  );
  const body = ordered.slice(0, limit).flatMap((item) => entry(item, target, verb));
  if (ordered.length > limit)
    body.push(`- …and ${ordered.length - limit} more (the JSON and HTML reports list them all)`);
  if (body.at(-1) !== "") body.push("");
  const title = `### ${ACTION_TITLES[action]} (${items.length})`;
  if (items.length <= FOLD_AFTER) return [title, "", ...body];
  return [
    title,
    "",
    "<details>",
    `<summary>${items.length} items</summary>`,
    "",
    ...body,
    "</details>",
    "",
  ];
}

/** `Task **Pay** (story Checkout) — tinyPM #130 ⇄ GitHub #77 · 1 comment` */
function itemLine(item: ReportItem, target: string): string {
  const kind = item.kind === "story" ? "Story" : "Task";
  const story =
    item.kind === "task" && item.storyTitle !== undefined ? ` (story ${md(item.storyTitle)})` : "";
  const tail = [itemPlaces(item, target), extrasLabel(item), item.reason ?? ""].filter(
    (s) => s !== "",
  );
  return `${kind} **${md(item.title)}**${story}${tail.length > 0 ? ` — ${md(tail.join(" · "))}` : ""}`;
}

function entry(item: ReportItem, target: string, verb: string): string[] {
  const lines = [`- ${itemLine(item, target)}`];
  const writes = writesLabel(item);
  if (writes !== "")
    lines.push(`  - ${verb[0]?.toUpperCase() ?? ""}${verb.slice(1)}: ${md(writes)}`);
  const links = itemLinks(item, target);
  if (links.length > 0)
    lines.push(
      `  - Links: ${links.map((l) => `[${md(l.label)}](${markdownUrl(l.url)})`).join(" · ")}`,
    );
  if (item.error !== undefined)
    lines.push(`  - Error ${md(item.error.code)}: ${md(item.error.message)}`);
  const kept = keptLabel(item, target);
  if (kept !== "") lines.push(`  - ${md(kept[0]?.toUpperCase() ?? "")}${md(kept.slice(1))}`);
  const descriptions = item.descriptions ?? [];
  if (item.changes.length === 0 && item.conflicts.length === 0 && descriptions.length === 0)
    return lines;
  lines.push("");
  if (item.changes.length > 0) {
    lines.push("  | Field | Old | New | Written to |", "  | --- | --- | --- | --- |");
    for (const c of item.changes)
      lines.push(
        `  | ${md(c.field)} | ${cell(c.from)} | ${cell(c.to)} | ${md(sideLabel(c.toSide, target))} |`,
      );
    lines.push("");
  }
  if (item.conflicts.length > 0) {
    lines.push(
      `  | Conflict | Base | tinyPM | ${md(target)} | Resolution |`,
      "  | --- | --- | --- | --- | --- |",
    );
    for (const c of item.conflicts)
      lines.push(
        `  | ${md(c.field)} | ${cell(c.base)} | ${cell(c.tinypm)} | ${cell(c.target)} | ${md(resolutionLabel(c.resolution, target))} |`,
      );
    lines.push("");
  }
  for (const d of descriptions) lines.push(...descriptionLines(d, target));
  return lines;
}

/** A description's word diff as a quote (removed in `<del>`, added in `<ins>`), then its rich line. */
function descriptionLines(d: ReportDescription, target: string): string[] {
  const lines: string[] = [];
  if (hasDiff(d)) {
    lines.push(`  Description → ${md(sideLabel(d.toSide, target))}, word diff:`, "");
    const text = shortened(d.diff)
      .map((part) =>
        part.text
          .split("\n")
          .map((t) => {
            if (t.trim() === "") return t === "" ? "" : " ";
            if (part.op === "added") return `<ins>${md(t)}</ins>`;
            if (part.op === "removed") return `<del>${md(t)}</del>`;
            return md(t);
          })
          .join("\n"),
      )
      .join("");
    for (const line of text.split("\n")) lines.push(line === "" ? "  >" : `  > ${line}`);
    lines.push("");
  }
  if (d.rich !== undefined) lines.push(`  ${md(richLine(d.rich, target))}`, "");
  return lines;
}

function users(report: Report, target: string): string[] {
  const { unmapped, matches, assigneeLoss } = report.users;
  if (unmapped.length === 0 && matches.length === 0) return [];
  const out = ["### Users", ""];
  if (assigneeLoss !== undefined) out.push(`Assignees: ${md(assigneeLoss.message)}`, "");
  if (unmapped.length > 0)
    out.push(
      `Not mapped to ${md(target)} (${unmapped.length}): ${unmapped.map(md).join(", ")}`,
      "",
    );
  if (matches.length === 0) return out;
  return [
    ...out,
    "<details>",
    `<summary>${matches.length} matched user${matches.length === 1 ? "" : "s"}</summary>`,
    "",
    `| tinyPM | ${md(target)} | How |`,
    "| --- | --- | --- |",
    ...matches.map((m) => `| ${md(m.tinypm)} | ${md(m.target)} | ${md(m.how)} |`),
    "",
    "</details>",
    "",
  ];
}

function apiCost(report: Report): string[] {
  const systems = [
    ...new Set([...Object.keys(report.apiCalls), ...Object.keys(report.estimatedWrites ?? {})]),
  ];
  if (systems.length === 0) return [];
  const estimated = report.estimatedWrites;
  const dry = estimated !== undefined;
  const read = report.tinypmRead;
  const out = [
    "### API cost",
    "",
    ...(read === undefined ? [] : [`tinyPM read: ${md(tinypmReadLine(read))}`, ""]),
    `| System | Reads | Writes | Retries | Rate-limit waits | Not modified |${dry ? " Writes it would make |" : ""}`,
    `| --- | ---: | ---: | ---: | ---: | ---: |${dry ? " ---: |" : ""}`,
  ];
  for (const system of systems) {
    const u = report.apiCalls[system];
    const row = u
      ? [u.reads, u.writes, u.retries, u.rateLimitWaits, u.notModified]
      : [0, 0, 0, 0, 0];
    if (estimated !== undefined) row.push(estimated[system] ?? 0);
    out.push(`| ${md(systemLabel(system))} | ${row.join(" | ")} |`);
  }
  const took = report.estimatedDuration;
  if (took === undefined) return [...out, ""];
  return [
    ...out,
    "",
    `Time the writes would take: ${md(took.text)}.`,
    ...(took.hint === undefined ? [] : ["", `> Hint: ${withCode(took.hint)}`]),
    "",
  ];
}

function notes(report: Report): string[] {
  if (report.notes.length === 0) return [];
  return ["### Notes", "", ...report.notes.map((n) => `- ${md(n)}`), ""];
}

/** A URL as a Markdown link target: the characters that would end or break it percent-encoded. */
function markdownUrl(url: string): string {
  return url.replace(
    /[()<>\s\\]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`,
  );
}

/** Text whose `backticked` parts are code (settings, commands): code spans kept, the rest escaped. */
function withCode(text: string): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part, i) => (i % 2 === 1 ? markdownCode(part.slice(1, -1)) : md(part)))
    .join("");
}
