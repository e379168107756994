/**
 * ADF → Jira wiki markup, the inverse of wiki-parse.ts: `parse(render(doc))` gives `doc` back for
 * every document the parser produces and for what Markdown → ADF produces, so a conversion is
 * stable after one pass. Text is escaped only where the parser would read markup (a mark char at
 * a word's edge, `{ } [ ] | \ !`, a block marker at a line's start), so `snake_case` and
 * `a-b` stay as written. Nodes wiki cannot hold are rendered as their text and named in `lost`.
 * Pure.
 */
import type { AdfMark, AdfNode } from "./adf.js";
import { ESCAPABLE } from "./wiki-inline.js";

export interface WikiRender {
  readonly wiki: string;
  /** What the wiki text could not hold (node or mark types), for the report. */
  readonly lost: readonly string[];
}

const MARK_CHAR: Readonly<Record<string, string>> = {
  strong: "*",
  em: "_",
  strike: "-",
  underline: "+",
};

const WORD = /[\p{L}\p{N}]/u;

/** ADF blocks → wiki text, blocks separated by a blank line. */
export function renderWiki(nodes: readonly AdfNode[]): WikiRender {
  const lost = new Set<string>();
  const wiki = nodes.map((n) => block(n, lost)).join("\n\n");
  return { wiki, lost: [...lost] };
}

function block(node: AdfNode, lost: Set<string>): string {
  switch (node.type) {
    case "paragraph":
      return escapeLines(inline(node.content ?? [], lost));
    case "heading": {
      const level = Math.min(6, Math.max(1, Number(node.attrs?.level ?? 1) || 1));
      return `h${level}. ${inline(node.content ?? [], lost).replace(/\n/g, " ")}`;
    }
    case "rule":
      return "----";
    case "codeBlock": {
      const text = (node.content ?? []).map((n) => n.text ?? "").join("");
      const language = typeof node.attrs?.language === "string" ? node.attrs.language : "";
      const tag = language === "" ? "noformat" : "code";
      if (text.includes(`{${tag}}`)) lost.add(`{${tag}} inside a code block`);
      const open = language === "" ? "{noformat}" : `{code:${language}}`;
      return `${open}\n${text}\n{${tag}}`;
    }
    case "blockquote":
      return `{quote}\n${renderWiki(node.content ?? []).wiki}\n{quote}`;
    case "panel": {
      const type = typeof node.attrs?.panelType === "string" ? node.attrs.panelType : "info";
      if (type !== "info") lost.add(`panel (${type})`);
      const inner = renderWiki(node.content ?? []);
      for (const l of inner.lost) lost.add(l);
      return `{panel}\n${inner.wiki}\n{panel}`;
    }
    case "bulletList":
    case "orderedList":
      return list(node, "", lost);
    case "table":
      return table(node, lost);
    default: {
      lost.add(node.type);
      if (node.content !== undefined) {
        const isBlock = node.content.some(
          (c) => c.type !== "text" && c.type !== "hardBreak" && c.type !== "mention",
        );
        return isBlock ? renderWiki(node.content).wiki : escapeLines(inline(node.content, lost));
      }
      return escapeLines(inline([node], lost));
    }
  }
}

function list(node: AdfNode, prefix: string, lost: Set<string>): string {
  const marker = prefix + (node.type === "orderedList" ? "#" : "*");
  const lines: string[] = [];
  for (const item of node.content ?? []) {
    const [head, ...rest] = item.content ?? [];
    if (head?.type === "paragraph") {
      lines.push(`${marker} ${inline(head.content ?? [], lost).replace(/\n/g, "\\\\")}`);
    } else {
      lines.push(`${marker} `);
      if (head !== undefined) rest.unshift(head);
    }
    for (const child of rest) {
      if (child.type === "bulletList" || child.type === "orderedList")
        lines.push(list(child, marker, lost));
      else {
        lost.add(`${child.type} in a list item`);
        lines.push(`${marker} ${block(child, lost).replace(/\n/g, "\\\\")}`);
      }
    }
  }
  return lines.join("\n");
}

function table(node: AdfNode, lost: Set<string>): string {
  return (node.content ?? [])
    .map((row) => {
      const cells = (row.content ?? []).map((cell) => {
        const bar = cell.type === "tableHeader" ? "||" : "|";
        const text = (cell.content ?? [])
          .map((c) => (c.type === "paragraph" ? inline(c.content ?? [], lost) : block(c, lost)))
          .join("\\\\")
          .replace(/\n/g, "\\\\");
        return `${bar}${text === "" ? " " : text}`;
      });
      const last = row.content?.[row.content.length - 1];
      return `${cells.join("")}${last?.type === "tableHeader" ? "||" : "|"}`;
    })
    .join("\n");
}

/** Inline nodes → wiki; a hard break is a newline (a line break inside a paragraph). */
function inline(nodes: readonly AdfNode[], lost: Set<string>): string {
  let out = "";
  for (const [i, node] of nodes.entries()) {
    switch (node.type) {
      case "text":
        out += marked(node.text ?? "", node.marks ?? [], nodes[i - 1], nodes[i + 1], lost);
        break;
      case "hardBreak":
        // A newline that would leave a blank line (which ends a paragraph) is written `\\`.
        out +=
          (out.split("\n").at(-1) ?? "").trim() === "" || i === nodes.length - 1 ? "\\\\" : "\n";
        break;
      case "mention": {
        const id = typeof node.attrs?.id === "string" ? node.attrs.id : "";
        out += `[~${id}]`;
        break;
      }
      default: {
        lost.add(node.type);
        const text =
          typeof node.attrs?.text === "string"
            ? node.attrs.text
            : typeof node.attrs?.url === "string"
              ? node.attrs.url
              : (node.text ?? "");
        out += escapeText(text, lost);
      }
    }
  }
  return out;
}

/** Text with its marks; `{*}x{*}` when a neighbour's letter would stop the plain form parsing. */
function marked(
  text: string,
  marks: readonly AdfMark[],
  before: AdfNode | undefined,
  after: AdfNode | undefined,
  lost: Set<string>,
): string {
  const code = marks.some((m) => m.type === "code");
  let out = code ? `{{${text.replace(/}}/g, "} }")}}}` : escapeText(text, lost);
  if (code && text.includes("}}")) lost.add("}} inside monospace");
  const prevChar = lastChar(before);
  const nextChar = firstChar(after);
  // The parser lists outer marks first: wrap from the innermost (last) outwards.
  for (const mark of [...marks].reverse()) {
    if (mark.type === "code") continue;
    if (mark.type === "link") {
      const href = typeof mark.attrs?.href === "string" ? mark.attrs.href : "";
      out = out === href ? `[${href}]` : `[${out}|${href}]`;
      continue;
    }
    const c =
      mark.type === "subsup" ? (mark.attrs?.type === "sub" ? "~" : "^") : MARK_CHAR[mark.type];
    if (c === undefined) {
      lost.add(mark.type);
      continue;
    }
    const tight = WORD.test(prevChar) || WORD.test(nextChar) || /^\s|\s$/.test(text) || text === "";
    out = tight ? `{${c}}${out}{${c}}` : `${c}${out}${c}`;
  }
  return out;
}

function lastChar(node: AdfNode | undefined): string {
  if (node?.type !== "text") return "";
  return (node.text ?? "").slice(-1);
}

function firstChar(node: AdfNode | undefined): string {
  if (node?.type !== "text") return "";
  return (node.text ?? "").slice(0, 1);
}

/** Escapes what the inline parser would read as markup. */
function escapeText(text: string, lost: Set<string>): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] ?? "";
    const prev = text[i - 1];
    const next = text[i + 1];
    if (ch === "\\") {
      // Wiki has no escape for a backslash: before markup or another one it would change meaning.
      if (next === undefined || next === "\\" || ESCAPABLE.includes(next)) lost.add("backslash");
      out += ch;
      continue;
    }
    const image = ch === "!" && !isWord(prev) && next !== undefined && !/\s/.test(next);
    if ("{}[]|".includes(ch) || image || (ch === "?" && next === "?")) {
      out += `\\${ch}`;
      continue;
    }
    if ("*_-+^~".includes(ch)) {
      // Inside a word, or between spaces, a mark char can neither open nor close a mark; at the
      // text's edges the neighbours are unknown, so it is escaped there.
      const inWord = isWord(prev) && isWord(next);
      const spaced = prev !== undefined && next !== undefined && /\s/.test(prev) && /\s/.test(next);
      if (!inWord && !spaced) {
        out += `\\${ch}`;
        continue;
      }
    }
    out += ch;
  }
  return out;
}

function isWord(ch: string | undefined): boolean {
  return ch !== undefined && WORD.test(ch);
}

/** A paragraph's lines: one starting like a block (`h1.`, `* `, `|`, `----`, `bq.`) is escaped. */
function escapeLines(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      const head = /^(h[1-6]|bq)\.(\s)/.exec(line);
      if (head !== null) return `${head[1] ?? ""}\\.${line.slice(head[0].length - 1)}`;
      // Mark chars at a line's start are already escaped or open a mark: the `#` is what makes
      // the line a list, so it is the one escaped.
      const run = /^[*#-]+\s/.exec(line)?.[0];
      if (run === undefined) return line;
      const at = Math.max(0, run.indexOf("#"));
      return `${line.slice(0, at)}\\${line.slice(at)}`;
    })
    .join("\n");
}
