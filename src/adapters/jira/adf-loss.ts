import { isDeepStrictEqual } from "node:util";
import { markdownToAdf, type AdfMark, type AdfNode } from "./adf.js";
import { renderBlock } from "./adf-render.js";

// What rewriting ADF from its Markdown would lose, named for people (`panel (warning)`, `mention
// @Alice`, `text colour #ff5630`). Pure.

/** What writing `text` instead of `node` loses, for people; empty when nothing is lost. */
export function lostOf(node: AdfNode, text: string = renderBlock(node)): string[] {
  // A mention survives its own Markdown, but tinyPM's copy of the block reads `@Name` (or `@login`
  // under the mapping's `mentions: matched`): rewritten from tinyPM, the mention is not sure to stay.
  if (!hasMention(node) && isDeepStrictEqual(markdownToAdf(text).content, [node])) return [];
  const found = new Set<string>();
  collect(node, found);
  return found.size > 0 ? [...found] : ["formatting"];
}

/**
 * What rewriting the content of a part (a list item's, a task's, a cell's) as `rebuilt` loses:
 * empty when it gives the same nodes back (ids aside), else what the content holds, with `prefix`.
 */
export function lostInPart(
  content: readonly AdfNode[],
  rebuilt: readonly AdfNode[] | undefined,
  prefix = "",
): string[] {
  if (rebuilt !== undefined && !content.some(hasMention)) {
    if (isDeepStrictEqual(withoutIds(rebuilt), withoutIds(content))) return [];
  }
  const found = new Set<string>();
  for (const node of content) collect(node, found);
  return (found.size > 0 ? [...found] : ["formatting"]).map((what) => `${prefix}${what}`);
}

/** Nodes with their `localId` attributes left out (Jira gives every task one of its own). */
function withoutIds(nodes: readonly AdfNode[]): unknown {
  return nodes.map((n): unknown => {
    const { localId: _, ...attrs } = n.attrs ?? {};
    return {
      ...n,
      ...(n.attrs !== undefined && { attrs }),
      ...(n.content !== undefined && { content: withoutIds(n.content) }),
    };
  });
}

export function hasMention(node: AdfNode): boolean {
  return node.type === "mention" || (node.content ?? []).some(hasMention);
}

const PLAIN_NODES = new Set([
  "paragraph",
  "text",
  "hardBreak",
  "heading",
  "codeBlock",
  "rule",
  "bulletList",
  "orderedList",
  "listItem",
  "blockquote",
]);
const PLAIN_MARKS = new Set(["code", "strong", "em", "strike"]);

function attr(
  node: { attrs?: Readonly<Record<string, unknown>> | undefined },
  key: string,
): string {
  const v = node.attrs?.[key];
  return typeof v === "string" || typeof v === "number" ? String(v) : "";
}

export function collect(node: AdfNode, found: Set<string>): void {
  if (!PLAIN_NODES.has(node.type)) found.add(describeNode(node));
  for (const mark of node.marks ?? []) {
    const lost = describeMark(mark);
    if (lost !== undefined) found.add(lost);
  }
  for (const child of node.content ?? []) collect(child, found);
}

function describeNode(node: AdfNode): string {
  switch (node.type) {
    case "mention":
      return `mention ${attr(node, "text") || attr(node, "id")}`;
    case "emoji":
      return `emoji ${attr(node, "shortName") || attr(node, "text")}`;
    case "status":
      return `status lozenge ${attr(node, "text")}`;
    case "date": {
      const ts = Number(attr(node, "timestamp"));
      return `date ${Number.isFinite(ts) ? new Date(ts).toISOString().slice(0, 10) : ""}`.trim();
    }
    case "inlineCard":
    case "blockCard":
    case "embedCard":
      return `smart link ${attr(node, "url")}`.trim();
    case "panel":
      return `panel (${attr(node, "panelType") || "info"})`;
    case "expand":
    case "nestedExpand":
      return `expand "${attr(node, "title")}"`;
    case "table": {
      const rows = node.content ?? [];
      return `table (${rows.length}×${rows[0]?.content?.length ?? 0})`;
    }
    case "tableRow":
    case "tableHeader":
    case "tableCell":
      return "table cell";
    case "taskList":
    case "taskItem":
      return "task list";
    case "decisionList":
    case "decisionItem":
      return "decision list";
    case "mediaSingle":
    case "mediaGroup":
    case "media":
    case "mediaInline":
      return "attachment";
    default:
      return node.type;
  }
}

function describeMark(mark: AdfMark): string | undefined {
  if (PLAIN_MARKS.has(mark.type)) return undefined;
  switch (mark.type) {
    case "link":
      return attr(mark, "title") === "" ? undefined : `link title "${attr(mark, "title")}"`;
    case "textColor":
      return `text colour ${attr(mark, "color")}`;
    case "backgroundColor":
      return `highlight ${attr(mark, "color")}`;
    case "underline":
      return "underline";
    case "subsup":
      return attr(mark, "type") === "sup" ? "superscript" : "subscript";
    default:
      return `${mark.type} formatting`;
  }
}
