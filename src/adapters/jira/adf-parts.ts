import type { JsonValue, RichBlock, RichParts } from "../../core/model.js";
import type { AdfNode } from "./adf.js";
import {
  cellContent,
  headFrom,
  listItemsFrom,
  nestedListFrom,
  rowsFrom,
  taskNodesFrom,
} from "./adf-build.js";
import { lostInPart } from "./adf-loss.js";
import {
  isNestedList,
  listItemLines,
  renderBlock,
  renderCellText,
  renderListItem,
  renderTaskList,
} from "./adf-render.js";

/**
 * The parts of a Jira list, task list or table, each with the text it reads as and what
 * rewriting it from that text would lose (see `RichParts`): a list's items, a list item's own
 * line and nested lists, a task list's tasks and nested task lists, a table's rows, a row's
 * cells. Pure. `depth`: how deep the list is nested (its items are indented two spaces a level).
 */
export function partsOf(node: AdfNode, depth: number): RichParts | undefined {
  switch (node.type) {
    case "bulletList":
    case "orderedList":
      return listParts(node, depth);
    case "taskList":
      return taskParts(node, depth);
    case "table":
      return tableParts(node);
    default:
      return undefined;
  }
}

const json = (node: AdfNode | readonly AdfNode[]): JsonValue => node as unknown as JsonValue;
const LINE = "[^\\n]*";
const MARKER = "(?:- |(?:0|[1-9]\\d{0,8})\\. )";

/** Lines at `depth`, the first starting with `first`, the rest deeper or starting with `more`. */
function linesAt(depth: number, first: string, more: string): string {
  const ind = "  ".repeat(depth);
  return `${ind}${first}${LINE}(?:\\n${ind}(?:${more}|  )${LINE})*`;
}

function listParts(list: AdfNode, depth: number): RichParts | undefined {
  const items = list.content ?? [];
  if (items.some((i) => i.type !== "listItem")) return undefined;
  const marker = list.type === "orderedList" ? "(?:0|[1-9]\\d{0,8})\\. " : "- ";
  return {
    kind: "lines",
    separator: "\n",
    accepts: linesAt(depth, marker, marker),
    blocks: items.map((item, i): RichBlock => {
      const text = renderListItem(list, i, depth);
      const back = listItemsFrom(list.type, text, depth);
      const parts = itemParts(list, i, depth);
      return {
        text,
        rich: json(item),
        lost: lostInPart(item.content ?? [], back?.length === 1 ? back[0]?.content : undefined),
        ...(parts !== undefined && { parts }),
      };
    }),
  };
}

/** A list item holding nested lists: its own line and each nested list are parts. */
function itemParts(list: AdfNode, i: number, depth: number): RichParts | undefined {
  const children = list.content?.[i]?.content ?? [];
  const firstList = children.findIndex(isNestedList);
  if (firstList < 0 || children.slice(firstList).some((c) => !isNestedList(c))) return undefined;
  const own = children.slice(0, firstList);
  const [head = "", ...nested] = listItemLines(list, i, depth);
  const ind = "  ".repeat(depth);
  return {
    kind: "lines",
    separator: "\n",
    accepts: `${ind}${MARKER}${LINE}|${linesAt(depth + 1, "", "")}`,
    blocks: [
      { text: head, rich: json(own), lost: lostInPart(own, headFrom(head, depth)) },
      ...children.slice(firstList).map((node, k): RichBlock => {
        const text = nested[k] ?? "";
        const parts = partsOf(node, depth + 1);
        return {
          text,
          rich: json(node),
          lost: lostInPart([node], nestedListFrom(text, depth + 1)),
          ...(parts !== undefined && { parts }),
        };
      }),
    ],
  };
}

function taskParts(list: AdfNode, depth: number): RichParts | undefined {
  const children = list.content ?? [];
  if (children.some((c) => c.type !== "taskItem" && c.type !== "taskList")) return undefined;
  const task = "- \\[[ xX]\\] ?";
  return {
    kind: "lines",
    separator: "\n",
    accepts: `${linesAt(depth, task, task)}|${linesAt(depth + 1, task, task)}`,
    blocks: children.map((child): RichBlock => {
      if (child.type === "taskList") {
        const text = renderTaskList(child, depth + 1);
        const parts = taskParts(child, depth + 1);
        return {
          text,
          rich: json(child),
          lost: lostInPart(child.content ?? [], taskNodesFrom(text, depth + 1)),
          ...(parts !== undefined && { parts }),
        };
      }
      const text = renderTaskList({ type: "taskList", content: [child] }, depth);
      const back = taskNodesFrom(text, depth);
      return {
        text,
        rich: json(child),
        lost: lostInPart([child], back?.length === 1 ? back : undefined),
      };
    }),
  };
}

/** Rows of a table whose rows all have the same cells, one a column (no merged cells). */
function tableParts(table: AdfNode): RichParts | undefined {
  const rows = table.content ?? [];
  const columns = rows[0]?.content?.length ?? 0;
  const merged = (c: AdfNode): boolean =>
    Number(c.attrs?.colspan ?? 1) > 1 || Number(c.attrs?.rowspan ?? 1) > 1;
  if (
    columns === 0 ||
    rows.some((r) => r.type !== "tableRow" || r.content?.length !== columns) ||
    rows.some((r) => (r.content ?? []).some(merged))
  )
    return undefined;
  const lines = renderBlock(table).split("\n");
  const header = lines.length > rows.length;
  const cell = "(?:[^|\\\\\\n]|\\\\.)*";
  const row = `\\|(?:${cell}\\|){${columns}}`;
  return {
    kind: "rows",
    separator: "\n",
    accepts: `${row}(?:\\n${row})*`,
    blocks: rows.map((r, i): RichBlock => {
      const text =
        header && i === 0 ? `${lines[0]}\n${lines[1]}` : (lines[header ? i + 1 : i] ?? "");
      const parts = cellParts(r, i);
      const back = rowsFrom(text);
      const lost = lostInPart(r.content ?? [], back?.length === 1 ? back[0]?.content : undefined);
      return {
        text,
        rich: json(r),
        lost: lost.length === 0 ? [] : cellsLost(parts, lost),
        parts,
      };
    }),
  };
}

function cellParts(row: AdfNode, r: number): RichParts {
  return {
    kind: "cells",
    separator: " | ",
    accepts: "(?:[^|\\\\\\n]|\\\\.)*",
    blocks: (row.content ?? []).map((cell, c): RichBlock => {
      const text = renderCellText(cell);
      const where = `cell (row ${r + 1}, column ${c + 1}): `;
      return {
        text,
        rich: json(cell),
        lost: lostInPart(cell.content ?? [], cellContent(text), where),
      };
    }),
  };
}

/** A row's loss, cell by cell where the cells say it (else the row's own). */
function cellsLost(parts: RichParts, row: readonly string[]): readonly string[] {
  const cells = parts.blocks.flatMap((b) => b.lost);
  return cells.length > 0 ? cells : row;
}
