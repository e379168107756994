/** The terminal report: grouped by story, field-level diffs, totals and API cost at the end. */
import { tinypmReadLine } from "./tinypm-read.js";
import { deleteGuardWords } from "./delete-guard.js";
import { createPalette, type Palette } from "./color.js";
import { escapeTerminal as safe } from "./escape.js";
import {
  countActions,
  foreignWords,
  groupItems,
  isForeign,
  isUnchanged,
  notReadWords,
} from "./group.js";
import {
  ACTIONS,
  durationLabel,
  extrasLabel,
  itemLinks,
  itemPlaces,
  keptLabel,
  plural,
  reportTitle,
  resolutionLabel,
  sideLabel,
  systemLabel,
  targetLabel,
  writesLabel,
  writesVerb,
} from "./labels.js";
import type { Report, ReportAction, ReportItem } from "./types.js";
import { hasDiff, richLine, shortened } from "./rich-text.js";
import { formatValue } from "./values.js";

/** Options of {@link renderText}. */
export interface TextOptions {
  /** ANSI colours (see `shouldColor`). @default false */
  readonly color?: boolean | undefined;
  /** List unchanged items too. @default false */
  readonly verbose?: boolean | undefined;
  /** The target's display name. @default the report's target system (`GitHub`, `Jira`) */
  readonly targetName?: string | undefined;
}

interface Ctx {
  readonly p: Palette;
  readonly target: string;
  /** `would write` or `wrote`. */
  readonly verb: string;
}

const MARKS: Readonly<Record<ReportAction, string>> = {
  create: "+",
  update: "~",
  adopt: "=",
  delete: "-",
  conflict: "!",
  failed: "✗",
  skip: "·",
};

function paintAction(p: Palette, action: ReportAction): (s: string) => string {
  switch (action) {
    case "create":
      return p.green;
    case "update":
      return p.yellow;
    case "adopt":
      return p.cyan;
    case "delete":
      return p.red;
    case "conflict":
      return p.magenta;
    case "failed":
      return (s) => p.bold(p.red(s));
    case "skip":
      return p.dim;
  }
}

/** A report as terminal text (ends with a newline). */
export function renderText(report: Report, opts: TextOptions = {}): string {
  return `${[...textLines(report, opts)].join("\n")}\n`;
}

/**
 * The lines of the terminal report, one at a time: a large migration's report is tens of
 * thousands of lines, which a caller writes as they come rather than as one text.
 */
export function* textLines(report: Report, opts: TextOptions = {}): Generator<string> {
  const ctx: Ctx = {
    p: createPalette(opts.color ?? false),
    target: targetLabel(report, opts.targetName),
    verb: writesVerb(report),
  };
  const verbose = opts.verbose ?? false;
  const { groups } = groupItems(report.items, verbose);
  yield* header(report, ctx);
  yield "";
  for (const group of groups) {
    let indent = "";
    if (group.story !== undefined) yield* itemLines(group.story, "", ctx);
    else if (group.storyTitle !== undefined)
      yield ctx.p.dim(`  story "${safe(group.storyTitle)}" (no changes)`);
    if (group.storyTitle !== undefined) indent = "    ";
    for (const task of group.tasks) yield* itemLines(task, indent, ctx);
  }
  if (groups.length === 0) yield "Nothing to do.";
  yield "";
  yield* footer(report, verbose, ctx);
}

function header(report: Report, { p, target }: Ctx): string[] {
  const what = `${reportTitle(report)} · job ${safe(report.job)} · tinyPM and ${safe(target)}`;
  const dry = report.dryRun ? " · dry run: nothing was written" : "";
  const took = durationLabel(report);
  const guard = deleteGuardWords(report);
  return [
    p.bold(what) + dry,
    p.dim(
      `run ${safe(report.runId)} · ${safe(report.startedAt)} → ${safe(report.finishedAt)}${took === undefined ? "" : ` (${took})`}`,
    ),
    ...(guard === undefined
      ? []
      : [
          guard.stops ? p.bold(p.red(safe(guard.text))) : p.yellow(safe(guard.text)),
          ...(guard.hint === undefined ? [] : [p.yellow(`Hint: ${safe(guard.hint)}`)]),
        ]),
  ];
}

function itemLines(item: ReportItem, indent: string, ctx: Ctx): string[] {
  const { p, target } = ctx;
  const paint = paintAction(p, item.action);
  const places = itemPlaces(item, target);
  const extras = extrasLabel(item);
  const tail = [places, extras, item.reason === undefined ? "" : safe(item.reason)]
    .filter((s) => s !== "")
    .join(" · ");
  const head = `${indent}${paint(`${MARKS[item.action]} ${item.action.padEnd(8)}`)} ${item.kind} "${safe(item.title)}"`;
  const lines = [tail === "" ? head : `${head}  ${p.dim(tail)}`];
  const sub = `${indent}      `;
  const writes = writesLabel(item);
  if (writes !== "") lines.push(`${sub}${p.dim(`${ctx.verb}:`)} ${safe(writes)}`);
  const links = itemLinks(item, target);
  if (links.length > 0)
    lines.push(
      `${sub}${p.dim("links:")} ${links.map((l) => `${safe(l.label)} ${safe(l.url)}`).join(" · ")}`,
    );
  for (const c of item.changes)
    lines.push(
      `${sub}${safe(c.field)} ${p.dim(`→ ${sideLabel(c.toSide, target)}`)}: ${p.red(show(c.from))} → ${p.green(show(c.to))}`,
    );
  const kept = keptLabel(item, target);
  if (kept !== "") lines.push(`${sub}${p.cyan(safe(kept))}`);
  for (const c of item.conflicts)
    lines.push(
      `${sub}${p.magenta(`${safe(c.field)} conflict`)}: base ${show(c.base)} · tinyPM ${show(c.tinypm)} · ${target} ${show(c.target)} → ${resolutionLabel(c.resolution, target)}`,
    );
  for (const d of item.descriptions ?? []) {
    if (hasDiff(d)) {
      lines.push(`${sub}${p.dim(`description → ${sideLabel(d.toSide, target)}, word diff:`)}`);
      const text = shortened(d.diff)
        .map((part) => {
          const t = part.text.split("\n").map(safe).join("\n");
          if (part.op === "added") return p.green(`{+${t}+}`);
          if (part.op === "removed") return p.red(`[-${t}-]`);
          return t;
        })
        .join("");
      for (const line of text.split("\n")) lines.push(`${sub}  ${line}`);
    }
    if (d.rich !== undefined) {
      const line = richLine(d.rich, target);
      lines.push(`${sub}${d.rich.lost.length === 0 ? p.dim(line) : p.yellow(line)}`);
    }
  }
  if (item.error !== undefined)
    lines.push(`${sub}${p.red(`error [${safe(item.error.code)}]: ${safe(item.error.message)}`)}`);
  return lines;
}

const show = (v: Parameters<typeof formatValue>[0]): string => safe(formatValue(v));

function footer(report: Report, verbose: boolean, { p, target }: Ctx): string[] {
  const lines: string[] = [];
  if (report.users.unmapped.length > 0)
    lines.push(
      p.yellow(
        `Users with no ${target} counterpart: ${report.users.unmapped.map(safe).join(", ")}`,
      ),
    );
  const loss = report.users.assigneeLoss;
  if (loss !== undefined) lines.push(p.yellow(`Assignees: ${safe(loss.message)}`));
  for (const note of report.notes) lines.push(`Note: ${safe(note)}`);
  if (report.tinypmRead !== undefined)
    lines.push(`tinyPM read: ${safe(tinypmReadLine(report.tinypmRead))}`);
  lines.push(`API calls: ${apiCalls(report)}`);
  if (report.estimatedWrites !== undefined)
    lines.push(`Writes this would make: ${estimates(report)}`);
  const took = report.estimatedDuration;
  if (took !== undefined) {
    lines.push(`Time the writes would take: ${safe(took.text)}`);
    if (took.hint !== undefined) lines.push(p.yellow(`Hint: ${safe(took.hint)}`));
  }
  lines.push(p.bold(`Totals: ${totals(report, verbose, target)}`));
  return lines;
}

function apiCalls(report: Report): string {
  const systems = Object.entries(report.apiCalls);
  if (systems.length === 0) return "none";
  return systems
    .map(([system, use]) => {
      const parts = [plural(use.reads, "read"), plural(use.writes, "write")];
      if (use.retries > 0) parts.push(plural(use.retries, "retry", "retries"));
      if (use.rateLimitWaits > 0) parts.push(plural(use.rateLimitWaits, "rate-limit wait"));
      if (use.notModified > 0) parts.push(`${use.notModified} not modified`);
      return `${systemLabel(system)} ${parts.join(", ")}`;
    })
    .join(" · ");
}

function estimates(report: Report): string {
  const entries = Object.entries(report.estimatedWrites ?? {});
  if (entries.length === 0) return "none";
  return entries.map(([system, n]) => `${systemLabel(system)} ${plural(n, "write")}`).join(" · ");
}

function totals(report: Report, verbose: boolean, target: string): string {
  const listed = report.items.filter((i) => !isUnchanged(i) && !isForeign(i));
  const foreign = report.items.filter(isForeign).length;
  const counts = countActions(listed);
  const parts = ACTIONS.filter((a) => counts[a] > 0).map((a) => `${counts[a]} ${a}`);
  const same = report.items.filter(isUnchanged).length;
  if (same > 0)
    parts.push(`${same} unchanged${verbose ? "" : " (not listed; --verbose lists them)"}`);
  if (foreign > 0) parts.push(foreignWords(foreign, target, verbose));
  const notRead = report.tinypmRead?.notRead ?? 0;
  if (notRead > 0) parts.push(notReadWords(notRead));
  return parts.length === 0 ? "nothing" : parts.join(" · ");
}
