import type { AdfNode } from "./adf.js";

/**
 * ADF nodes outside the Markdown subset (tables, panels, expands, task and decision lists,
 * media), rendered as text that keeps their meaning for tinyPM readers. Pure; the caller passes
 * its own block and inline renderers so that nesting works.
 */
export interface Renderers {
  readonly blocks: (nodes: readonly AdfNode[]) => string;
  readonly inline: (nodes: readonly AdfNode[]) => string;
}

const PANEL_NAMES: Readonly<Record<string, string>> = {
  info: "Info",
  note: "Note",
  warning: "Warning",
  success: "Success",
  error: "Error",
  tip: "Tip",
  custom: "Panel",
};

/** `Warning: first line…`: the panel's type as a prefix of its content. */
export function renderPanel(node: AdfNode, r: Renderers): string {
  const type = typeof node.attrs?.panelType === "string" ? node.attrs.panelType : "info";
  const name = PANEL_NAMES[type] ?? capitalise(type);
  return `${name}: ${r.blocks(node.content ?? [])}`;
}

/** `▸ Title` on its own line, then the expand's content. */
export function renderExpand(node: AdfNode, r: Renderers): string {
  const title = typeof node.attrs?.title === "string" ? node.attrs.title.trim() : "";
  const body = r.blocks(node.content ?? []);
  const head = `▸ ${title === "" ? "Details" : title}`;
  return body === "" ? head : `${head}\n${body}`;
}

/** Task items as `- [ ]` / `- [x]`, decision items as `- ◇`, nested lists indented. */
export function renderCheckList(node: AdfNode, depth: number, r: Renderers): string {
  const indent = "  ".repeat(depth);
  return (node.content ?? [])
    .map((item) => {
      if (item.type === "taskList" || item.type === "decisionList")
        return renderCheckList(item, depth + 1, r);
      const box = item.type === "decisionItem" ? "◇" : item.attrs?.state === "DONE" ? "[x]" : "[ ]";
      const text = oneLine(r.inline(item.content ?? []));
      return `${indent}- ${box} ${text}`;
    })
    .join("\n");
}

/**
 * A table as aligned text, one row a line, columns padded to the widest cell, with a rule under
 * a header row (so it also reads as a GitHub table).
 */
export function renderTable(table: AdfNode, r: Renderers): string {
  const rows = (table.content ?? []).map((row) =>
    (row.content ?? []).map((cell) => oneLine(r.blocks(cell.content ?? [])).replace(/\|/g, "\\|")),
  );
  if (rows.length === 0) return "";
  const columns = Math.max(...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, c) =>
    Math.max(3, ...rows.map((row) => width(row[c] ?? ""))),
  );
  const line = (cells: readonly string[]): string =>
    `| ${widths.map((w, c) => pad(cells[c] ?? "", w)).join(" | ")} |`;
  const header = (table.content?.[0]?.content ?? []).every((c) => c.type === "tableHeader");
  const out = rows.map(line);
  if (header) out.splice(1, 0, `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`);
  return out.join("\n");
}

/**
 * A media node as `[attachment: name]`: its alt text or file name, an external image's URL, or
 * `file` (a file's id is an opaque number that means nothing to a reader, so it is never shown).
 */
export function renderMedia(node: AdfNode): string {
  const attrs = node.attrs ?? {};
  const external = attrs.type === "external" ? attrs.url : undefined;
  const name = [attrs.alt, attrs.name, external].find((v) => typeof v === "string" && v !== "");
  return `[attachment: ${typeof name === "string" ? name : "file"}]`;
}

/** A mediaSingle or mediaGroup: each attachment, then the caption's text (if any). */
export function renderMediaBlock(node: AdfNode, r: Renderers): string {
  return (node.content ?? [])
    .map((child) =>
      child.type === "caption" ? oneLine(r.inline(child.content ?? [])) : renderMedia(child),
    )
    .filter((text) => text !== "")
    .join(" ");
}

const GRAPHEMES = new Intl.Segmenter("en", { granularity: "grapheme" });

/** Visible width: one per grapheme (an emoji with modifiers is one). */
function width(text: string): number {
  let n = 0;
  for (const _ of GRAPHEMES.segment(text)) n++;
  return n;
}

function pad(text: string, w: number): string {
  return text + " ".repeat(Math.max(0, w - width(text)));
}

function capitalise(s: string): string {
  return s === "" ? "Panel" : `${s.charAt(0).toUpperCase()}${s.slice(1)}`;
}

export function oneLine(text: string): string {
  return text.replace(/\n+/g, " ");
}
