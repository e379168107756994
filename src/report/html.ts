/**
 * The HTML report: one self-contained file (inline style and script, nothing fetched) with the
 * summary, a filter by action, per-item field diffs and conflicts, users and API cost. Every
 * text from the report is escaped.
 */
import { tinypmReadLine } from "./tinypm-read.js";
import { deleteGuardWords } from "./delete-guard.js";
import { createHash } from "node:crypto";
import { escapeHtml as h } from "./escape.js";
import {
  countActions,
  foreignWords,
  groupItems,
  leftOutCounts,
  isUnchanged,
  notReadWords,
} from "./group.js";
import { HTML_SCRIPT, HTML_STYLE } from "./html-assets.js";
import {
  ACTION_TITLES,
  ACTIONS,
  durationLabel,
  extrasLabel,
  keptLabel,
  itemLinks,
  itemPlaces,
  plural,
  reportTitle,
  resolutionLabel,
  sideLabel,
  systemLabel,
  targetLabel,
  writesVerb,
} from "./labels.js";
import { hasDiff, richLine, shortened } from "./rich-text.js";
import type { Report, ReportDescription, ReportItem, ReportValue } from "./types.js";
import { formatValue } from "./values.js";

/** Options of {@link renderHtml}. */
export interface HtmlOptions {
  /** List unchanged items too. @default false */
  readonly verbose?: boolean | undefined;
  /** The target's display name. @default from the report's target */
  readonly targetName?: string | undefined;
}

const sha256 = (text: string): string =>
  `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/**
 * Defence in depth behind the escaping: the page may run only its own script and style (by hash)
 * and load nothing at all.
 */
const CSP = `default-src 'none'; script-src ${sha256(HTML_SCRIPT)}; style-src ${sha256(HTML_STYLE)}; base-uri 'none'; form-action 'none'`;

/** A value, shortened, with the whole value as a tooltip. */
function value(v: ReportValue, cls = ""): string {
  const full = formatValue(v, { max: Number.POSITIVE_INFINITY });
  const attr = cls === "" ? "" : ` class="${cls}"`;
  return `<span${attr} title="${h(full)}">${h(formatValue(v))}</span>`;
}

/** A report as one HTML document (ends with a newline). */
export function renderHtml(report: Report, opts: HtmlOptions = {}): string {
  const target = targetLabel(report, opts.targetName);
  const verbose = opts.verbose ?? false;
  const title = `${reportTitle(report)}: ${report.job}`;
  const { groups } = groupItems(report.items, verbose);
  const rows = groups.flatMap((g) => [...(g.story ? [g.story] : []), ...g.tasks]);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(title)}</title>
<style>${HTML_STYLE}</style>
</head>
<body>
<header>
<h1>${h(title)}</h1>
<p class="meta">${meta(report, target)}</p>${guard(report)}
</header>
${summary(report)}
${filter(rows)}
${itemsTable(rows, target, writesVerb(report))}
${leftOut(report, target, verbose)}
${users(report, target)}
${apiCost(report)}
${notes(report)}
<script>${HTML_SCRIPT}</script>
</body>
</html>
`;
}

function guard(report: Report): string {
  const words = deleteGuardWords(report);
  if (words === undefined) return "";
  const hint = words.hint === undefined ? "" : `<br>Hint: ${h(words.hint)}`;
  return `<p class="delete-guard ${words.stops ? "error" : "muted"}" data-delete-guard>${words.stops ? `<strong>${h(words.text)}</strong>` : h(words.text)}${hint}</p>`;
}

function meta(report: Report, target: string): string {
  const took = durationLabel(report);
  const parts = [
    `tinyPM and ${h(target)}`,
    ...(report.dryRun ? ["<strong>dry run: nothing was written</strong>"] : []),
    `run <code>${h(report.runId)}</code>`,
    `${h(report.startedAt)} → ${h(report.finishedAt)}${took === undefined ? "" : ` (${took})`}`,
  ];
  return parts.join(" · ");
}

function summary(report: Report): string {
  const s = report.summary;
  const { foreign, notRead } = leftOutCounts(report);
  const stats: [string, string, number][] = [
    ["created", "Created", s.created],
    ["updated", "Updated", s.updated],
    ["unchanged", "Unchanged", Math.max(0, s.unchanged - foreign)],
    ["conflicts", "Conflicts", s.conflicts],
    ["failed", "Failed", s.failed],
    ["deleted", "Deleted", s.deleted],
    ...(foreign > 0
      ? [["foreign", "Foreign (left alone)", foreign] as [string, string, number]]
      : []),
    ...(notRead > 0
      ? [["not-read", "Not read this run", notRead] as [string, string, number]]
      : []),
  ];
  const cells = stats.map(
    ([key, label, n]) =>
      `<div class="stat" data-stat="${key}"><span class="n">${n}</span><span class="l">${label}</span></div>`,
  );
  return `<section class="summary" aria-label="Summary">${cells.join("")}</section>${estimate(report)}`;
}

/** A dry run's time estimate, beside the summary cards: the line a plan is read for. */
function estimate(report: Report): string {
  const took = report.estimatedDuration;
  if (took === undefined) return "";
  const hint = took.hint === undefined ? "" : `<p class="hint">Hint: ${h(took.hint)}</p>`;
  return `<p class="estimate">Time the writes would take: ${h(took.text)}.</p>${hint}`;
}

/** The items the summary leaves out of the list: unchanged, foreign, not read this run. */
function leftOut(report: Report, target: string, verbose: boolean): string {
  const lines: string[] = [];
  const unchanged = verbose ? 0 : report.items.filter(isUnchanged).length;
  if (unchanged > 0) lines.push(`${plural(unchanged, "unchanged item")} not listed.`);
  const { foreign, notRead } = leftOutCounts(report);
  if (foreign > 0) lines.push(`${foreignWords(foreign, target, verbose)}.`);
  if (notRead > 0) lines.push(`${notReadWords(notRead)}.`);
  return lines.map((l) => `<p class="muted">${h(l)}</p>`).join("");
}

function filter(rows: readonly ReportItem[]): string {
  const counts = countActions(rows);
  const buttons = [
    `<button type="button" data-filter="all" aria-pressed="true">All (${rows.length})</button>`,
  ];
  for (const a of ACTIONS)
    if (counts[a] > 0)
      buttons.push(
        `<button type="button" data-filter="${a}" aria-pressed="false">${ACTION_TITLES[a]} (${counts[a]})</button>`,
      );
  return `<nav class="filter" aria-label="Filter by action">${buttons.join("")}</nav>`;
}

function itemsTable(rows: readonly ReportItem[], target: string, verb: string): string {
  if (rows.length === 0) return `<p>Nothing to do.</p>`;
  const body = rows.map((item) => itemRow(item, target, verb)).join("\n");
  return `<table class="items">
<thead><tr><th>Action</th><th>Item</th><th>Where</th><th>Details</th></tr></thead>
<tbody>
${body}
</tbody>
</table>`;
}

function itemRow(item: ReportItem, target: string, verb: string): string {
  const story =
    item.kind === "task" && item.storyTitle !== undefined
      ? ` <span class="muted">in story ${h(item.storyTitle)}</span>`
      : "";
  const where = [itemPlaces(item, target), extrasLabel(item)].filter((s) => s !== "").join(" · ");
  const links = itemLinks(item, target).map(
    (l) => `<a class="link" href="${h(l.url)}" rel="noreferrer noopener">${h(l.label)}</a>`,
  );
  const linked = links.length === 0 ? "" : `<div class="links">${links.join(" · ")}</div>`;
  return `<tr class="${item.kind}" data-action="${item.action}"><td><span class="badge a-${item.action}">${item.action}</span></td><td class="item">${item.kind === "story" ? "Story" : "Task"}: <strong>${h(item.title)}</strong>${story}</td><td>${h(where)}${linked}</td><td>${details(item, target, verb)}</td></tr>`;
}

function details(item: ReportItem, target: string, verb: string): string {
  const parts: string[] = [];
  if (item.writes !== undefined && item.writes.length > 0) {
    const rows = item.writes.map(
      (w) => `<tr class="write"><td>${h(w.field)}</td><td>${value(w.value, "new")}</td></tr>`,
    );
    parts.push(
      `<table class="writes"><caption>${h(verb[0]?.toUpperCase() ?? "")}${h(verb.slice(1))}</caption><thead><tr><th>Field</th><th>Value</th></tr></thead><tbody>${rows.join("")}</tbody></table>`,
    );
  }
  if (item.reason !== undefined) parts.push(`<span class="muted">${h(item.reason)}</span>`);
  if (item.error !== undefined)
    parts.push(
      `<div class="error"><code>${h(item.error.code)}</code>: ${h(item.error.message)}</div>`,
    );
  if (item.changes.length > 0) {
    const rows = item.changes.map(
      (c) =>
        `<tr class="diff"><td>${h(c.field)}</td><td>${value(c.from, "old")}</td><td>${value(c.to, "new")}</td><td>→ ${h(sideLabel(c.toSide, target))}</td></tr>`,
    );
    parts.push(
      `<table class="changes"><thead><tr><th>Field</th><th>Old</th><th>New</th><th>Written to</th></tr></thead><tbody>${rows.join("")}</tbody></table>`,
    );
  }
  const kept = keptLabel(item, target);
  if (kept !== "") parts.push(`<div class="kept">${h(kept)}</div>`);
  if (item.conflicts.length > 0) {
    const rows = item.conflicts.map(
      (c) =>
        `<tr class="conflict"><td>${h(c.field)}</td><td>${value(c.base)}</td><td>${value(c.tinypm)}</td><td>${value(c.target)}</td><td>${h(resolutionLabel(c.resolution, target))}</td></tr>`,
    );
    parts.push(
      `<table class="conflicts"><thead><tr><th>Conflict</th><th>Base</th><th>tinyPM</th><th>${h(target)}</th><th>Resolution</th></tr></thead><tbody>${rows.join("")}</tbody></table>`,
    );
  }
  for (const d of item.descriptions ?? []) parts.push(descriptionHtml(d, target));
  return parts.join("");
}

/** A description's word diff (`<del>`/`<ins>`, line breaks kept) and its rich-content line. */
function descriptionHtml(d: ReportDescription, target: string): string {
  const out: string[] = [];
  if (hasDiff(d)) {
    const runs = shortened(d.diff).map((part) => {
      if (part.op === "added") return `<ins>${h(part.text)}</ins>`;
      if (part.op === "removed") return `<del>${h(part.text)}</del>`;
      return h(part.text);
    });
    out.push(
      `<div class="word-diff"><div class="muted">Description → ${h(sideLabel(d.toSide, target))}, word diff</div><pre>${runs.join("")}</pre></div>`,
    );
  }
  if (d.rich !== undefined) {
    const cls = d.rich.lost.length === 0 ? "muted" : "error";
    out.push(`<div class="rich ${cls}">${h(richLine(d.rich, target))}</div>`);
  }
  return out.join("");
}

function users(report: Report, target: string): string {
  const { unmapped, matches, assigneeLoss } = report.users;
  if (unmapped.length === 0 && matches.length === 0) return "";
  const parts = [`<section class="users"><h2>Users</h2>`];
  if (assigneeLoss !== undefined)
    parts.push(`<p class="assignee-loss">Assignees: ${h(assigneeLoss.message)}</p>`);
  if (unmapped.length > 0)
    parts.push(
      `<p>Not mapped to ${h(target)} (${unmapped.length}):</p><ul class="unmapped">${unmapped.map((u) => `<li>${h(u)}</li>`).join("")}</ul>`,
    );
  if (matches.length > 0)
    parts.push(
      `<details><summary>${plural(matches.length, "matched user")}</summary><table><thead><tr><th>tinyPM</th><th>${h(target)}</th><th>How</th></tr></thead><tbody>${matches.map((m) => `<tr><td>${h(m.tinypm)}</td><td>${h(m.target)}</td><td>${h(m.how)}</td></tr>`).join("")}</tbody></table></details>`,
    );
  return `${parts.join("")}</section>`;
}

function apiCost(report: Report): string {
  const estimated = report.estimatedWrites;
  const systems = [...new Set([...Object.keys(report.apiCalls), ...Object.keys(estimated ?? {})])];
  if (systems.length === 0) return "";
  const rows = systems.map((system) => {
    const u = report.apiCalls[system];
    const cells = u
      ? [u.reads, u.writes, u.retries, u.rateLimitWaits, u.notModified]
      : [0, 0, 0, 0, 0];
    if (estimated !== undefined) cells.push(estimated[system] ?? 0);
    return `<tr><th>${h(systemLabel(system))}</th>${cells.map((n) => `<td>${n}</td>`).join("")}</tr>`;
  });
  const est = estimated === undefined ? "" : "<th>Writes it would make</th>";
  const read =
    report.tinypmRead === undefined
      ? ""
      : `<p class="tinypm-read">tinyPM read: ${h(tinypmReadLine(report.tinypmRead))}</p>`;
  return `<section class="api"><h2>API cost</h2>${read}<table><thead><tr><th>System</th><th>Reads</th><th>Writes</th><th>Retries</th><th>Rate-limit waits</th><th>Not modified</th>${est}</tr></thead><tbody>${rows.join("")}</tbody></table></section>`;
}

function notes(report: Report): string {
  if (report.notes.length === 0) return "";
  return `<section class="notes"><h2>Notes</h2><ul>${report.notes.map((n) => `<li>${h(n)}</li>`).join("")}</ul></section>`;
}
