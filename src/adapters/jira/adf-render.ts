import { needsBlockEscape, type AdfMark, type AdfNode } from "./adf.js";

/**
 * ADF → canonical Markdown, the inverse of `markdownToAdf` on its subset. Nodes outside the subset
 * (mentions, emoji, cards, dates, status lozenges, panels, tables, media) degrade to readable text
 * so that nothing a Jira user wrote disappears.
 */
export function adfToMarkdown(doc: AdfNode | undefined | null): string {
  if (!doc) return "";
  return renderBlocks(doc.content ?? []);
}

function renderBlocks(blocks: readonly AdfNode[]): string {
  return blocks.map(renderBlock).join("\n\n");
}

function renderBlock(node: AdfNode): string {
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
      return renderTable(node);
    default:
      return node.content ? renderBlocks(node.content) : renderInline([node]);
  }
}

function renderList(list: AdfNode, depth: number): string {
  const ordered = list.type === "orderedList";
  const rawStart = Number(list.attrs?.order ?? 1);
  const start = Number.isInteger(rawStart) && rawStart >= 0 ? rawStart : 1;
  const indent = "  ".repeat(depth);
  return (list.content ?? [])
    .map((item, i) => {
      const marker = ordered ? `${start + i}. ` : "- ";
      const children = item.content ?? [];
      const text = children
        .filter((c) => c.type !== "bulletList" && c.type !== "orderedList")
        .map((c) => oneLine(c.content ? renderInline(c.content) : renderInline([c])))
        .join(" ");
      const nested = children
        .filter((c) => c.type === "bulletList" || c.type === "orderedList")
        .map((c) => `\n${renderList(c, depth + 1)}`)
        .join("");
      return `${indent}${marker}${text}${nested}`;
    })
    .join("\n");
}

function renderTable(table: AdfNode): string {
  return (table.content ?? [])
    .map((row) =>
      (row.content ?? []).map((cell) => oneLine(renderBlocks(cell.content ?? []))).join(" | "),
    )
    .join("\n");
}

function oneLine(text: string): string {
  return text.replace(/\n+/g, " ");
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
      return stringAttr(node, "text") || `@${stringAttr(node, "id")}`;
    case "emoji":
      return stringAttr(node, "text") || stringAttr(node, "shortName");
    case "inlineCard":
    case "blockCard":
    case "embedCard":
      return stringAttr(node, "url");
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
      return typeof href === "string" ? `[${text}](${href})` : text;
    }
    default:
      return text;
  }
}
