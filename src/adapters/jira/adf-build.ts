import { randomUUID } from "node:crypto";
import type { RichPiece } from "../../core/model.js";
import { isRuleLine, splitCells } from "../../core/table-cells.js";
import { markdownToAdf, parseInline, type AdfNode } from "./adf.js";
import { renderBlock } from "./adf-render.js";

/**
 * ADF from description pieces: kept nodes as read, new Markdown converted, and lists, list items,
 * task lists, tables and rows kept with only their changed parts converted in place (an item at
 * the list's depth, a row of cells, one cell's text). A block whose parts do not convert, or
 * convert to other text, is written from its whole text instead.
 */
export function buildPieces(pieces: readonly RichPiece[]): AdfNode[] {
  return pieces.flatMap((p) => {
    if ("within" in p) {
      const built = buildWithin(p.within as unknown as AdfNode, p.parts, 0);
      if (built !== undefined && sameText(renderBlock(built), p.text)) return [built];
      return markdownToAdf(p.text).content;
    }
    if ("keep" in p) return nodesOf(p.keep);
    return markdownToAdf(p.text).content;
  });
}

function nodesOf(kept: unknown): AdfNode[] {
  return Array.isArray(kept) ? (kept as AdfNode[]) : [kept as AdfNode];
}

/** `node` with its content rebuilt from `pieces`, or undefined when a piece does not fit. */
function buildWithin(
  node: AdfNode,
  pieces: readonly RichPiece[],
  depth: number,
): AdfNode | undefined {
  const content: AdfNode[] = [];
  for (const [i, p] of pieces.entries()) {
    const nodes = buildPart(node, p, i, depth);
    if (nodes === undefined) return undefined;
    content.push(...nodes);
  }
  return { ...node, content };
}

function buildPart(
  node: AdfNode,
  p: RichPiece,
  index: number,
  depth: number,
): readonly AdfNode[] | undefined {
  if ("keep" in p) return nodesOf(p.keep);
  if ("within" in p) {
    const inner = p.within as unknown as AdfNode;
    // A list item's nested lists and a task list's nested task lists are one level deeper.
    const deeper = node.type === "listItem" || node.type === "taskList";
    const built = buildWithin(inner, p.parts, deeper ? depth + 1 : depth);
    return built === undefined ? undefined : [built];
  }
  switch (node.type) {
    case "bulletList":
    case "orderedList":
      return listItemsFrom(node.type, p.text, depth);
    case "listItem":
      return headFrom(p.text, depth) ?? nestedListFrom(p.text, depth + 1);
    case "taskList":
      return taskNodesFrom(p.text, depth);
    case "table":
      return rowsFrom(p.text);
    case "tableRow": {
      const cell = node.content?.[index];
      return cell === undefined ? undefined : [cellFrom(cell, p.text)];
    }
    default:
      return undefined;
  }
}

/** Lines without `depth` levels of indentation, or undefined when one is not indented so. */
function dedent(text: string, depth: number): string | undefined {
  const indent = "  ".repeat(depth);
  const lines = text.split("\n");
  if (!lines.every((l) => l.startsWith(indent))) return undefined;
  return lines.map((l) => l.slice(indent.length)).join("\n");
}

/** List items of a `type` list written at `depth`. */
export function listItemsFrom(
  type: string,
  text: string,
  depth: number,
): readonly AdfNode[] | undefined {
  const plain = dedent(text, depth);
  const blocks = plain === undefined ? [] : markdownToAdf(plain).content;
  const list = blocks[0];
  return blocks.length === 1 && list?.type === type ? (list.content ?? []) : undefined;
}

/** One list (task, bullet or ordered list) written at `depth`. */
export function nestedListFrom(text: string, depth: number): readonly AdfNode[] | undefined {
  const tasks = taskNodesFrom(text, depth);
  if (tasks !== undefined) return [taskList(tasks)];
  for (const type of ["bulletList", "orderedList"]) {
    const items = listItemsFrom(type, text, depth);
    if (items === undefined) continue;
    const plain = dedent(text, depth) ?? "";
    return markdownToAdf(plain).content;
  }
  return undefined;
}

/** A new task list (Jira gives every task list and task an id of its own). */
function taskList(content: AdfNode[]): AdfNode {
  return { type: "taskList", attrs: { localId: randomUUID() }, content };
}

const HEAD = /^(?:- |(?:0|[1-9]\d{0,8})\. )(.*)$/u;

/** A list item's own text (its head line at `depth`) as its paragraph. */
export function headFrom(text: string, depth: number): AdfNode[] | undefined {
  const plain = dedent(text, depth);
  const m = plain === undefined || plain.includes("\n") ? null : HEAD.exec(plain);
  return m === null ? undefined : [paragraph(m[1] ?? "")];
}

const TASK = /^- \[([ xX])\] ?(.*)$/u;

/** Task items (`- [x] done`), with tasks indented under them as nested task lists. */
export function taskNodesFrom(text: string, depth: number): AdfNode[] | undefined {
  const plain = dedent(text, depth);
  if (plain === undefined || plain === "") return undefined;
  const lines = plain.split("\n");
  const out: AdfNode[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    if (line.startsWith("  ")) {
      let j = i;
      while (j < lines.length && (lines[j] ?? "").startsWith("  ")) j++;
      const nested = taskNodesFrom(lines.slice(i, j).join("\n"), 1);
      if (nested === undefined) return undefined;
      out.push(taskList(nested));
      i = j;
      continue;
    }
    const m = TASK.exec(line);
    if (m === null) return undefined;
    const inline = parseInline(m[2] ?? "");
    out.push({
      type: "taskItem",
      attrs: { localId: randomUUID(), state: m[1] === " " ? "TODO" : "DONE" },
      ...(inline.length > 0 && { content: inline }),
    });
    i++;
  }
  return out;
}

/** Table rows from their lines; a rule line makes the row above it a header row. */
export function rowsFrom(text: string): AdfNode[] | undefined {
  const rows: AdfNode[][] = [];
  for (const line of text.split("\n")) {
    if (rows.length > 0 && isRuleLine(line)) {
      const last = rows.at(-1) ?? [];
      rows[rows.length - 1] = last.map((c) => ({ ...c, type: "tableHeader" }));
      continue;
    }
    const cells = splitCells(line.trim());
    if (cells === undefined) return undefined;
    rows.push(cells.map((c) => ({ type: "tableCell", content: cellContent(c) })));
  }
  return rows.map((content) => ({ type: "tableRow", content }));
}

/** `cell` (its type and attributes kept) holding `text`. */
export function cellFrom(cell: AdfNode, text: string): AdfNode {
  return { ...cell, content: cellContent(text) };
}

/** A cell's text (pipes escaped, as the table shows it) as its paragraph. */
export function cellContent(text: string): AdfNode[] {
  return [paragraph(text.trim().replace(/\\\|/g, "|"))];
}

function paragraph(raw: string): AdfNode {
  return raw === "" ? { type: "paragraph" } : { type: "paragraph", content: parseInline(raw) };
}

/** The same text, table padding and ordered-list numbers aside. */
function sameText(a: string, b: string): boolean {
  const norm = (s: string): string =>
    s
      .split("\n")
      .map((l) =>
        l
          .replace(/^(\s*)\d+\. /u, "$1#. ")
          .replace(/ {2,}/g, " ")
          .replace(/^\|[\s:|-]*-[\s:|-]*\|$/u, "|---|")
          .trimEnd(),
      )
      .join("\n");
  return norm(a) === norm(b);
}
