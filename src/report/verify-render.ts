/**
 * `verify`'s report in every format: text for terminals (with its cost in the footer), JSON (the
 * CLI contract's shape, plus the job, the target and the cost), Markdown to paste, one
 * self-contained HTML page. Every title is escaped for where it goes.
 */
import { createHash } from "node:crypto";
import { escapeHtml as h, escapeMarkdown as md, escapeTerminal } from "./escape.js";
import { plural, systemLabel } from "./labels.js";
import type { ReportFormat } from "./types.js";
import { formatValue } from "./values.js";
import type { VerifyDifference, VerifyReport, VerifyUnlinked } from "./verify-types.js";

/** A verify report in one format (ends with a newline). */
export function renderVerify(report: VerifyReport, format: ReportFormat): string {
  switch (format) {
    case "text":
      return verifyText(report);
    case "json":
      return `${JSON.stringify(report, null, 2)}\n`;
    case "markdown":
      return verifyMarkdown(report);
    case "html":
      return verifyHtml(report);
  }
}

/** `12 pairs compared: 11 equal, 1 different; 2 items unlinked`. */
export function verifyHeadline(r: VerifyReport): string {
  const s = r.summary;
  return (
    `${plural(s.pairs, "linked pair")} compared: ${s.equal} equal, ${s.different} different; ` +
    `${plural(s.unlinked, "item")} unlinked`
  );
}

/** `Cost: 14 requests (tinyPM 9, GitHub 5) for 40 items read, 0.35 per item; nothing written`. */
export function verifyCostLine(r: VerifyReport): string {
  const parts = Object.entries(r.cost.requests).map(([s, n]) => `${systemLabel(s)} ${n}`);
  const total = Object.values(r.cost.requests).reduce((a, b) => a + b, 0);
  return (
    `Cost: ${plural(total, "request")} (${parts.join(", ")}) for ${plural(r.cost.items, "item")} ` +
    `read, ${r.cost.perItem} per item; nothing written`
  );
}

const ref = (kind: string, id: string): string => `${kind} ${id}`;

function verifyText(r: VerifyReport): string {
  const t = (s: string): string => escapeTerminal(s);
  const target = systemLabel(r.target);
  const lines = [`Verify ${t(r.job)} (tinyPM ⇄ ${target}): ${verifyHeadline(r)}`];
  if (r.differences.length > 0) lines.push("", "Different:");
  for (const d of r.differences) {
    lines.push(`  ${d.kind} "${t(d.title)}" (tinyPM ${d.tinypmId} ⇄ ${target} ${d.targetId})`);
    for (const f of d.fields)
      lines.push(
        `    ${t(f.field)}: tinyPM ${t(formatValue(f.tinypm))} · ${target} ${t(formatValue(f.target))}`,
      );
  }
  const unlinked = (side: string, items: readonly VerifyUnlinked[]): void => {
    if (items.length === 0) return;
    lines.push("", `Unlinked on ${side}:`);
    for (const u of items) lines.push(`  ${ref(u.kind, u.id)} "${t(u.title)}"`);
  };
  unlinked("tinyPM", r.unlinked.tinypm);
  unlinked(target, r.unlinked.target);
  lines.push("", verifyCostLine(r));
  return `${lines.join("\n")}\n`;
}

function verifyMarkdown(r: VerifyReport): string {
  const target = systemLabel(r.target);
  const lines = [`## Verify: ${md(r.job)} (tinyPM ⇄ ${target})`, "", md(verifyHeadline(r))];
  if (r.differences.length > 0) {
    lines.push("", "### Different", "");
    for (const d of r.differences) {
      lines.push(
        `- ${d.kind} ${title(d)} (tinyPM ${md(d.tinypmId)} ⇄ ${target} ${md(d.targetId)})`,
      );
      lines.push("", "  | Field | tinyPM | " + target + " |", "  | --- | --- | --- |");
      for (const f of d.fields)
        lines.push(
          `  | ${md(f.field)} | ${md(formatValue(f.tinypm))} | ${md(formatValue(f.target))} |`,
        );
      lines.push("");
    }
  }
  for (const [side, items] of [
    ["tinyPM", r.unlinked.tinypm],
    [target, r.unlinked.target],
  ] as const) {
    if (items.length === 0) continue;
    lines.push("", `### Unlinked on ${side}`, "");
    for (const u of items) lines.push(`- ${u.kind} ${md(u.id)}: ${md(u.title)}`);
  }
  lines.push("", `_${md(verifyCostLine(r))}_`);
  return `${lines.join("\n")}\n`;
}

function title(d: VerifyDifference): string {
  return d.url === undefined ? `“${md(d.title)}”` : `[${md(d.title)}](<${d.url}>)`;
}

const STYLE =
  "body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:.5em 0 1em}" +
  "td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}.ok{color:#176f2c}.bad{color:#b00020}";
const CSP = `default-src 'none'; style-src 'sha256-${createHash("sha256").update(STYLE, "utf8").digest("base64")}'; base-uri 'none'; form-action 'none'`;

function verifyHtml(r: VerifyReport): string {
  const target = systemLabel(r.target);
  const clean = r.summary.different === 0 && r.summary.unlinked === 0;
  const body: string[] = [
    `<h1>Verify: ${h(r.job)} (tinyPM ⇄ ${h(target)})</h1>`,
    `<p class="${clean ? "ok" : "bad"}">${h(verifyHeadline(r))}</p>`,
  ];
  if (r.differences.length > 0) body.push("<h2>Different</h2>");
  for (const d of r.differences) {
    const name = d.url === undefined ? h(d.title) : `<a href="${h(d.url)}">${h(d.title)}</a>`;
    body.push(
      `<h3>${h(d.kind)} ${name} <small>(tinyPM ${h(d.tinypmId)} ⇄ ${h(target)} ${h(d.targetId)})</small></h3>`,
      `<table><tr><th>Field</th><th>tinyPM</th><th>${h(target)}</th></tr>`,
      ...d.fields.map(
        (f) =>
          `<tr><td>${h(f.field)}</td><td>${h(formatValue(f.tinypm))}</td><td>${h(formatValue(f.target))}</td></tr>`,
      ),
      "</table>",
    );
  }
  for (const [side, items] of [
    ["tinyPM", r.unlinked.tinypm],
    [target, r.unlinked.target],
  ] as const) {
    if (items.length === 0) continue;
    body.push(`<h2>Unlinked on ${h(side)}</h2><ul>`);
    for (const u of items) body.push(`<li>${h(u.kind)} ${h(u.id)}: ${h(u.title)}</li>`);
    body.push("</ul>");
  }
  body.push(`<p><small>${h(verifyCostLine(r))}</small></p>`);
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">` +
    `<meta http-equiv="Content-Security-Policy" content="${h(CSP)}">` +
    `<title>Verify: ${h(r.job)}</title><style>${STYLE}</style></head>\n<body>\n${body.join("\n")}\n</body></html>\n`
  );
}
