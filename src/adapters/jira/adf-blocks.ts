import { isDeepStrictEqual } from "node:util";
import type { JsonValue, RichDescription, RichPiece } from "../../core/model.js";
import { markdownToAdf, type AdfDoc, type AdfMark, type AdfNode } from "./adf.js";
import { renderBlock } from "./adf-render.js";

/**
 * A Jira description as blocks (its top-level ADF nodes), each with the Markdown it reads as and
 * what rewriting it from that Markdown would lose; and the way back from kept blocks and new
 * text to one ADF document. Pure.
 */
export function richDescriptionOf(doc: unknown): RichDescription | undefined {
  if (doc === null || typeof doc !== "object") return undefined;
  const content = (doc as AdfNode).content ?? [];
  if (content.length === 0) return undefined;
  return {
    separator: "\n\n",
    blocks: content.map((node) => {
      const text = renderBlock(node);
      return { text, rich: node as unknown as JsonValue, lost: lostOf(node, text) };
    }),
  };
}

/** The document for kept blocks (as read) and new Markdown text (converted). */
export function docFromPieces(pieces: readonly RichPiece[]): AdfDoc {
  const content = pieces.flatMap((p) =>
    "keep" in p ? [p.keep as unknown as AdfNode] : markdownToAdf(p.text).content,
  );
  return { type: "doc", version: 1, content };
}

/** What writing `text` instead of `node` loses, for people; empty when nothing is lost. */
export function lostOf(node: AdfNode, text: string = renderBlock(node)): string[] {
  // A mention survives its own Markdown, but tinyPM's copy of the block reads `@Name` (or `@login`
  // under the mapping's `mentions: matched`): rewritten from tinyPM, the mention is not sure to stay.
  if (!hasMention(node) && isDeepStrictEqual(markdownToAdf(text).content, [node])) return [];
  const found = new Set<string>();
  collect(node, found);
  return found.size > 0 ? [...found] : ["formatting"];
}

function hasMention(node: AdfNode): boolean {
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

function collect(node: AdfNode, found: Set<string>): void {
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
