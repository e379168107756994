import { needsBlockEscape, type AdfMark, type AdfNode } from "./adf.js";
import {
  oneLine,
  renderCheckList,
  renderExpand,
  renderMedia,
  renderMediaBlock,
  renderPanel,
  renderTable,
  type Renderers,
} from "./adf-render-rich.js";

/**
 * ADF → canonical Markdown, the inverse of `markdownToAdf` on its subset. Nodes outside the subset
 * keep their meaning as text so that nothing a Jira user wrote disappears: link text with its URL
 * (and title), expand titles with their content, the panel type as a prefix, mentions as names,
 * status lozenges and dates as text, tables as aligned text, task lists as `- [ ]`/`- [x]`.
 */
export function adfToMarkdown(doc: AdfNode | undefined | null): string {
  if (!doc) return "";
  return renderBlocks(doc.content ?? []);
}

function renderBlocks(blocks: readonly AdfNode[]): string {
  return blocks.map(renderBlock).join("\n\n");
}

const RENDERERS: Renderers = { blocks: renderBlocks, inline: (nodes) => renderInline(nodes) };

/** A mention's spelling as its name alone (inside a table, whose text is aligned and lossy). */
const plainMentions = (s: string): string =>
  s.replace(/\[@([^\]\n]*)\]\(mention:[^()\s]+\)/g, "@$1");
const PLAIN_RENDERERS: Renderers = {
  blocks: (nodes) => plainMentions(renderBlocks(nodes)),
  inline: (nodes) => plainMentions(renderInline(nodes)),
};

/** One block node as canonical Markdown (a description is its blocks joined by a blank line). */
export function renderBlock(node: AdfNode): string {
  switch (node.type) {
    case "paragraph": {
      const raw = renderInline(node.content ?? []);
      return needsBlockEscape(raw) ? `\\${raw}` : raw;
    }
    case "heading": {
      const level = Number(node.attrs?.level ?? 1);
      const depth = Math.min(6, Math.max(1, Number.isFinite(level) ? level : 1));
      return `${"#".repeat(depth)} ${oneLine(renderInline(node.content ?? []))}`;
    }
    case "codeBlock": {
      const language = stringAttr(node, "language");
      const text = (node.content ?? []).map((n) => n.text ?? "").join("");
      return text === "" ? `\`\`\`${language}\n\`\`\`` : `\`\`\`${language}\n${text}\n\`\`\``;
    }
    case "rule":
      return "---";
    case "bulletList":
    case "orderedList":
      return renderList(node, 0);
    case "blockquote":
      return renderBlocks(node.content ?? [])
        .split("\n")
        .map((l) => (l === "" ? ">" : `> ${l}`))
        .join("\n");
    case "table":
      return renderTable(node, PLAIN_RENDERERS);
    case "panel":
      return renderPanel(node, RENDERERS);
    case "expand":
    case "nestedExpand":
      return renderExpand(node, RENDERERS);
    case "taskList":
    case "decisionList":
      return renderCheckList(node, 0, RENDERERS);
    case "mediaSingle":
    case "mediaGroup":
      return renderMediaBlock(node, RENDERERS);
    case "blockCard":
    case "embedCard":
      return renderInline([node]);
    default:
      return node.content ? renderBlocks(node.content) : renderInline([node]);
  }
}

const NESTED_LISTS = new Set(["bulletList", "orderedList", "taskList", "decisionList"]);

function renderList(list: AdfNode, depth: number): string {
  return (list.content ?? []).map((_, i) => renderListItem(list, i, depth)).join("\n");
}

/** The `i`th item of a list at `depth`: its head line, then its nested lists (see `listItemParts`). */
export function renderListItem(list: AdfNode, i: number, depth: number): string {
  return listItemLines(list, i, depth).join("\n");
}

/** The marker of a list's `i`th item (`- `, or `3. ` for the third of an ordered list from 1). */
export function listMarker(list: AdfNode, i: number): string {
  if (list.type !== "orderedList") return "- ";
  const rawStart = Number(list.attrs?.order ?? 1);
  const start = Number.isInteger(rawStart) && rawStart >= 0 ? rawStart : 1;
  return `${start + i}. `;
}

/** Whether a node is a list nested in a list item. */
export function isNestedList(node: AdfNode): boolean {
  return NESTED_LISTS.has(node.type);
}

/** A list item's head line and each nested list's text, in that order. */
export function listItemLines(list: AdfNode, i: number, depth: number): string[] {
  const item = list.content?.[i];
  const children = item?.content ?? [];
  const text = children
    .filter((c) => !isNestedList(c))
    .map((c) => oneLine(c.content ? renderInline(c.content) : renderInline([c])))
    .join(" ");
  const nested = children
    .filter(isNestedList)
    .map((c) =>
      c.type === "taskList" || c.type === "decisionList"
        ? renderCheckList(c, depth + 1, RENDERERS)
        : renderList(c, depth + 1),
    );
  return [`${"  ".repeat(depth)}${listMarker(list, i)}${text}`, ...nested];
}

/** A task or decision list at `depth`, one line an item (nested lists indented). */
export function renderTaskList(node: AdfNode, depth: number): string {
  return renderCheckList(node, depth, RENDERERS);
}

/** Text in a table cell, as the table shows it (mentions as names, `|` escaped, one line). */
export function renderCellText(cell: AdfNode): string {
  return oneLine(PLAIN_RENDERERS.blocks(cell.content ?? [])).replace(/\|/g, "\\|");
}

/** A smart link given as JSON-LD data instead of a URL: its `url` or name. */
function dataUrl(node: AdfNode): string {
  const data = node.attrs?.data;
  if (data === null || typeof data !== "object") return "";
  const d = data as Record<string, unknown>;
  const v = [d.url, d.name].find((x) => typeof x === "string");
  return typeof v === "string" ? v : "";
}

function stringAttr(node: AdfNode, key: string): string {
  const value = node.attrs?.[key];
  return typeof value === "string" ? value : "";
}

/** Inline nodes to Markdown; a hardBreak is a newline. */
export function renderInline(nodes: readonly AdfNode[]): string {
  return nodes.map(renderInlineNode).join("");
}

function renderInlineNode(node: AdfNode): string {
  switch (node.type) {
    case "text":
      return applyMarks(node.text ?? "", node.marks ?? []);
    case "hardBreak":
      return "\n";
    case "mention":
      return renderMention(node);
    case "emoji":
      return stringAttr(node, "text") || stringAttr(node, "shortName");
    case "inlineCard":
    case "blockCard":
    case "embedCard":
      return stringAttr(node, "url") || dataUrl(node);
    case "media":
    case "mediaInline":
      return renderMedia(node);
    case "date": {
      const ts = Number(node.attrs?.timestamp);
      return Number.isFinite(ts) ? new Date(ts).toISOString().slice(0, 10) : "";
    }
    case "status":
      return stringAttr(node, "text");
    default:
      return node.content ? renderInline(node.content) : (node.text ?? "");
  }
}

/**
 * A mention keeps its accountId: `[@Display Name](mention:accountId)` (read back as a mention node;
 * the mapping shows it to tinyPM as `@Display Name`, or `@login` for a matched user). A name that
 * the spelling cannot hold exactly falls back to the name alone.
 */
function renderMention(node: AdfNode): string {
  const id = stringAttr(node, "id");
  const text = stringAttr(node, "text");
  const name = text || id;
  const plain = name.startsWith("@") ? name : `@${name}`;
  const label = text.replace(/^@/, "");
  if (!MENTION_ID.test(id) || /[\]\n]/.test(label) || `@${label}` !== (text || `@${id}`))
    return plain;
  return `[@${label}](mention:${id})`;
}

const MENTION_ID = /^[^()\s]+$/;

const MARK_ORDER = ["code", "strike", "em", "strong", "link"];

function applyMarks(text: string, marks: readonly AdfMark[]): string {
  const sorted = [...marks].sort((a, b) => MARK_ORDER.indexOf(a.type) - MARK_ORDER.indexOf(b.type));
  return sorted.reduce((acc, mark) => wrap(acc, mark), text);
}

function wrap(text: string, mark: AdfMark): string {
  switch (mark.type) {
    case "code":
      return `\`${text}\``;
    case "strike":
      return `~~${text}~~`;
    case "em":
      return `_${text}_`;
    case "strong":
      return `**${text}**`;
    case "link": {
      const href = mark.attrs?.href;
      const title = mark.attrs?.title;
      if (typeof href !== "string") return text;
      return typeof title === "string" && title !== ""
        ? `[${text}](${href} "${title.replace(/"/g, "'")}")`
        : `[${text}](${href})`;
    }
    default:
      return text;
  }
}
