/**
 * Jira wiki markup → ADF, block level: a line scanner that recognises headings (`h1.`–`h6.`),
 * `bq.`, `{quote}`, `{panel}`, `{code[:lang]}`, `{noformat}`, `----`, lists (`*`, `#`, `-`, nested
 * and mixed as `#*`), tables (`||th||`, `|td|`) and paragraphs (lines joined by line breaks),
 * each block with the exact wiki source it came from, so a block nobody changed is written back
 * byte for byte. Inline text goes through wiki-inline.ts. Pure.
 */
import type { AdfNode } from "./adf.js";
import { parseWikiInline } from "./wiki-inline.js";

/** A top-level block: its ADF node, its source lines, and what ADF could not hold. */
export interface WikiBlock {
  readonly node: AdfNode;
  readonly source: string;
  readonly literal: readonly string[];
}

// `[^\n]` rather than `.`: lines may end in `\r` (CRLF text), which `.` does not match.
const HEADING = /^h([1-6])\.\s+([^\n]*)$/;
const LIST = /^([*#]+|-)\s+([^\n]*)$/;
const MACRO_OPEN = /^\{(code|noformat|quote|panel)(?::([^}]*))?\}([^\n]*)$/;

/** Parses a wiki document into blocks (empty text → no blocks). */
export function parseWikiBlocks(wiki: string): WikiBlock[] {
  // CRLF is kept: a `\r` is text, so text written with CRLF reads back exactly.
  const lines = wiki.split("\n");
  const blocks: WikiBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    if (line.trim() === "") {
      i++;
      continue;
    }
    const [block, next] = readBlock(lines, i);
    blocks.push(block);
    i = next;
  }
  return blocks;
}

/** A wiki document → ADF content (the blocks' nodes). */
export function wikiToAdfContent(wiki: string): AdfNode[] {
  return parseWikiBlocks(wiki).map((b) => b.node);
}

function readBlock(lines: readonly string[], start: number): [WikiBlock, number] {
  const line = lines[start] ?? "";
  const src = (end: number): string => lines.slice(start, end).join("\n");
  const heading = HEADING.exec(line);
  if (heading !== null) {
    const inline = parseWikiInline(heading[2] ?? "");
    const node = { type: "heading", attrs: { level: Number(heading[1]) }, content: inline.nodes };
    return [{ node, source: line, literal: inline.literal }, start + 1];
  }
  if (/^-{4,}\s*$/.test(line))
    return [{ node: { type: "rule" }, source: line, literal: [] }, start + 1];
  if (line.startsWith("bq. ")) {
    const inline = parseWikiInline(line.slice(4));
    const node = { type: "blockquote", content: [{ type: "paragraph", content: inline.nodes }] };
    return [{ node, source: line, literal: inline.literal }, start + 1];
  }
  const macro = MACRO_OPEN.exec(line);
  if (macro !== null) {
    const read = readMacro(lines, start, macro);
    if (read !== undefined) return read;
  }
  if (LIST.test(line)) {
    let end = start;
    while (end < lines.length && LIST.test(lines[end] ?? "")) end++;
    const { node, literal } = listOf(lines.slice(start, end));
    return [{ node, source: src(end), literal }, end];
  }
  if (line.startsWith("|")) {
    let end = start;
    while (end < lines.length && (lines[end] ?? "").startsWith("|")) end++;
    const { node, literal } = tableOf(lines.slice(start, end));
    return [{ node, source: src(end), literal }, end];
  }
  let end = start + 1;
  while (end < lines.length && !startsBlock(lines[end] ?? "")) end++;
  const inline = parseWikiInline(lines.slice(start, end).join("\n"));
  return [
    {
      node: { type: "paragraph", content: inline.nodes },
      source: src(end),
      literal: inline.literal,
    },
    end,
  ];
}

function startsBlock(line: string): boolean {
  return (
    line.trim() === "" ||
    HEADING.test(line) ||
    /^-{4,}\s*$/.test(line) ||
    line.startsWith("bq. ") ||
    MACRO_OPEN.test(line) ||
    LIST.test(line) ||
    line.startsWith("|")
  );
}

/** `{code}`, `{noformat}`, `{quote}`, `{panel}` up to the closing tag (undefined: never closed). */
function readMacro(
  lines: readonly string[],
  start: number,
  open: RegExpExecArray,
): [WikiBlock, number] | undefined {
  const name = open[1] ?? "";
  const params = open[2];
  const close = `{${name}}`;
  const body: string[] = [];
  const first = open[3] ?? "";
  let end = start;
  let rest = first;
  for (;;) {
    const at = rest.indexOf(close);
    if (at >= 0) {
      body.push(rest.slice(0, at));
      if (rest.slice(at + close.length).trim() !== "") return undefined;
      break;
    }
    body.push(rest);
    end++;
    if (end >= lines.length) return undefined;
    rest = lines[end] ?? "";
  }
  const source = lines.slice(start, end + 1).join("\n");
  // The opening line's own text, when empty, is not a line of the body.
  const text = (first === "" && body.length > 1 ? body.slice(1) : body).join("\n");
  const inner =
    first === "" && body.length > 1 && body[body.length - 1] === ""
      ? text.replace(/\n$/, "")
      : text;
  if (name === "code" || name === "noformat") {
    const language = name === "code" ? languageOf(params) : undefined;
    const node: AdfNode = {
      type: "codeBlock",
      // No language, no attrs: the node Markdown's fence gives (adf.ts), so no false loss.
      ...(language !== undefined && { attrs: { language } }),
      ...(inner === "" ? {} : { content: [{ type: "text", text: inner }] }),
    };
    const literal = params !== undefined && name === "noformat" ? ["noformat options"] : [];
    return [{ node, source, literal }, end + 1];
  }
  const blocks = parseWikiBlocks(inner);
  const content = blocks.map((b) => b.node);
  const literal = blocks.flatMap((b) => b.literal);
  if (name === "quote")
    return [{ node: { type: "blockquote", content }, source, literal }, end + 1];
  const title = params === undefined ? undefined : /(?:^|\|)title=([^|]*)/.exec(params)?.[1];
  const titled: AdfNode[] =
    title === undefined || title === ""
      ? content
      : [
          {
            type: "paragraph",
            content: [{ type: "text", text: title, marks: [{ type: "strong" }] }],
          },
          ...content,
        ];
  const other = (params ?? "").split("|").filter((p) => p !== "" && !p.startsWith("title="));
  return [
    {
      node: { type: "panel", attrs: { panelType: "info" }, content: titled },
      source,
      literal: [...literal, ...(other.length > 0 ? ["panel colours"] : [])],
    },
    end + 1,
  ];
}

function languageOf(params: string | undefined): string | undefined {
  if (params === undefined) return undefined;
  const first = params.split("|")[0] ?? "";
  if (first.includes("=")) {
    const lang = /(?:^|\|)language=([^|]*)/.exec(params)?.[1];
    return lang === "" ? undefined : lang;
  }
  return first === "" ? undefined : first;
}

interface ListLine {
  readonly markers: string;
  readonly text: string;
}

/** Nested lists from marker strings: `*`, `**`, `#`, `#*` (the last marker says the kind). */
function listOf(lines: readonly string[]): { node: AdfNode; literal: string[] } {
  const items = lines.map((l): ListLine => {
    const m = LIST.exec(l);
    return { markers: m?.[1] === "-" ? "*" : (m?.[1] ?? "*"), text: m?.[2] ?? "" };
  });
  const literal: string[] = [];
  const [node] = buildList(items, 0, 1, literal);
  return { node, literal };
}

function kindOf(marker: string | undefined): string {
  return marker === "#" ? "orderedList" : "bulletList";
}

/** The list at `depth` starting at `start`: returns the node and the index after it. */
function buildList(
  items: readonly ListLine[],
  start: number,
  depth: number,
  literal: string[],
): [AdfNode, number] {
  const first = items[start];
  const type = kindOf(first?.markers[depth - 1]);
  const content: AdfNode[] = [];
  let i = start;
  while (i < items.length) {
    const item = items[i];
    if (item === undefined || item.markers.length < depth) break;
    if (item.markers.length === depth) {
      if (kindOf(item.markers[depth - 1]) !== type && content.length > 0) break;
      const inline = parseWikiInline(item.text);
      literal.push(...inline.literal);
      content.push({ type: "listItem", content: [{ type: "paragraph", content: inline.nodes }] });
      i++;
      continue;
    }
    // Deeper: a nested list inside the last item (or an item of its own when there is none).
    const [nested, next] = buildList(items, i, depth + 1, literal);
    const last = content[content.length - 1];
    if (last === undefined)
      content.push({ type: "listItem", content: [{ type: "paragraph", content: [] }, nested] });
    else content[content.length - 1] = { ...last, content: [...(last.content ?? []), nested] };
    i = next;
  }
  const node: AdfNode =
    type === "orderedList" ? { type, attrs: { order: 1 }, content } : { type, content };
  return [node, i];
}

/** `||h||h||` and `|c|c|` rows; a cell's `\\` is a line break. */
function tableOf(lines: readonly string[]): { node: AdfNode; literal: string[] } {
  const literal: string[] = [];
  const rows = lines.map((line) => {
    const cells = splitRow(line);
    return {
      type: "tableRow",
      content: cells.map(({ header, text }) => {
        const inline = parseWikiInline(text.trim());
        literal.push(...inline.literal);
        return {
          type: header ? "tableHeader" : "tableCell",
          attrs: {},
          content: [{ type: "paragraph", content: inline.nodes }],
        };
      }),
    };
  });
  return {
    node: {
      type: "table",
      attrs: { isNumberColumnEnabled: false, layout: "default" },
      content: rows,
    },
    literal,
  };
}

/** The cells of one row: `||` opens a header cell, `|` a data cell; escapes and `[a|b]` kept. */
function splitRow(line: string): { header: boolean; text: string }[] {
  const cells: { header: boolean; text: string }[] = [];
  let i = 0;
  let current: { header: boolean; text: string } | undefined;
  let depth = 0;
  while (i < line.length) {
    const ch = line[i] ?? "";
    if (ch === "\\" && i + 1 < line.length) {
      if (current !== undefined) current.text += line.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (ch === "[") depth++;
    if (ch === "]") depth = Math.max(0, depth - 1);
    if (ch === "|" && depth === 0) {
      if (current !== undefined) cells.push(current);
      const header = line[i + 1] === "|";
      current = { header, text: "" };
      i += header ? 2 : 1;
      continue;
    }
    if (current !== undefined) current.text += ch;
    i++;
  }
  // The row's closing bar leaves an empty last cell behind.
  if (current !== undefined && current.text.trim() !== "") cells.push(current);
  return cells;
}
