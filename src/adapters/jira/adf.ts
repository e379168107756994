/**
 * Markdown → ADF (Atlassian Document Format), for the subset tinyPM-sync writes.
 *
 * Why our own converter: the npm candidates were tried (marklassian 1.2.1, adf-to-md 1.2.1,
 * md-to-adf 0.6.4). None round-trips plain text faithfully: single newlines collapse into spaces,
 * `__init__` becomes bold, `<b>` is dropped, list markers and fences are rewritten, blank lines
 * are merged, and adf-to-md prints to the console and ships ESLint as a runtime dependency.
 *
 * The grammar here is deliberately conservative so that `adfToMarkdown(markdownToAdf(s)) === s`
 * for every string (tested as a property): blocks are separated by exactly one blank line
 * (`\n\n`), a single newline is a `hardBreak`, and a construct is recognised only in its
 * canonical spelling (`- item`, `1. item`, `# Heading`, `**strong**`, `_em_`, `` `code` ``,
 * `~~strike~~`, `[text](url)`, fenced code, `> quote`, `---`). Everything else stays literal text.
 */

export interface AdfMark {
  readonly type: string;
  readonly attrs?: Readonly<Record<string, unknown>> | undefined;
}

export interface AdfNode {
  readonly type: string;
  readonly text?: string | undefined;
  readonly attrs?: Readonly<Record<string, unknown>> | undefined;
  readonly marks?: readonly AdfMark[] | undefined;
  readonly content?: readonly AdfNode[] | undefined;
}

export interface AdfDoc {
  readonly type: "doc";
  readonly version: 1;
  readonly content: readonly AdfNode[];
}

type BlockKind = "code" | "heading" | "rule" | "list" | "quote" | "paragraph";

const HEADING = /^(#{1,6}) ([^\n]+)$/;
const LIST_LINE = /^((?: {2})*)(?:(- )|(0|[1-9]\d{0,8})\. )(.*)$/;
const QUOTE_LINE = /^(?:> .+|>)$/;

/** Converts canonical Markdown to an ADF document. */
export function markdownToAdf(markdown: string): AdfDoc {
  const content = markdown === "" ? [] : parseBlocks(markdown);
  return { type: "doc", version: 1, content };
}

/** Splits on blank lines, keeping fenced code blocks whole. */
export function splitBlocks(markdown: string): string[] {
  const chunks = markdown.split("\n\n");
  const blocks: string[] = [];
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i] ?? "";
    if (chunk.startsWith("```") && !isClosedFence(chunk)) {
      let joined = chunk;
      let j = i + 1;
      while (j < chunks.length && !isClosedFence(joined)) joined += `\n\n${chunks[j++] ?? ""}`;
      if (isClosedFence(joined)) {
        blocks.push(joined);
        i = j - 1;
        continue;
      }
    }
    blocks.push(chunk);
  }
  return blocks;
}

function parseBlocks(markdown: string): AdfNode[] {
  return splitBlocks(markdown).map(parseBlock);
}

function isClosedFence(chunk: string): boolean {
  const lines = chunk.split("\n");
  if (lines.length === 3 && lines[1] === "") return false; // ambiguous with an empty block
  return lines.length >= 2 && /^```[^`\s]*$/.test(lines[0] ?? "") && lines.at(-1) === "```";
}

/** What a raw block would be read as. */
export function classifyBlock(chunk: string): BlockKind {
  if (isClosedFence(chunk)) return "code";
  if (chunk === "---") return "rule";
  if (HEADING.test(chunk)) return "heading";
  if (parseList(chunk.split("\n"), 0) !== undefined) return "list";
  if (chunk.split("\n").every((l) => QUOTE_LINE.test(l))) return "quote";
  return "paragraph";
}

/** Whether a paragraph's raw text needs a leading backslash to stay a paragraph. */
export function needsBlockEscape(raw: string): boolean {
  if (classifyBlock(raw) !== "paragraph") return true;
  return raw.startsWith("\\") && needsBlockEscape(raw.slice(1));
}

function parseBlock(chunk: string): AdfNode {
  switch (classifyBlock(chunk)) {
    case "code": {
      const lines = chunk.split("\n");
      const language = (lines[0] ?? "").slice(3);
      const text = lines.slice(1, -1).join("\n");
      return {
        type: "codeBlock",
        ...(language && { attrs: { language } }),
        ...(text && { content: [{ type: "text", text }] }),
      };
    }
    case "rule":
      return { type: "rule" };
    case "heading": {
      const m = HEADING.exec(chunk);
      return {
        type: "heading",
        attrs: { level: m?.[1]?.length ?? 1 },
        content: parseInline(m?.[2] ?? ""),
      };
    }
    case "list":
      return parseList(chunk.split("\n"), 0) ?? paragraph(chunk);
    case "quote": {
      const inner = chunk
        .split("\n")
        .map((l) => l.slice(2))
        .join("\n");
      return { type: "blockquote", content: parseBlocks(inner) };
    }
    case "paragraph":
      return paragraph(
        chunk.startsWith("\\") && needsBlockEscape(chunk.slice(1)) ? chunk.slice(1) : chunk,
      );
  }
}

function paragraph(raw: string): AdfNode {
  return raw === "" ? { type: "paragraph" } : { type: "paragraph", content: parseInline(raw) };
}

interface ListLine {
  readonly depth: number;
  readonly order: number | undefined;
  readonly text: string;
}

function readListLine(line: string): ListLine | undefined {
  const m = LIST_LINE.exec(line);
  if (!m) return undefined;
  const depth = (m[1] ?? "").length / 2;
  return { depth, order: m[2] ? undefined : Number(m[3]), text: m[4] ?? "" };
}

/** Parses lines at `depth` into one list, or undefined when they are not a canonical list. */
function parseList(lines: readonly string[], depth: number): AdfNode | undefined {
  const read = lines.map(readListLine);
  if (read.length === 0 || read.some((l) => l === undefined)) return undefined;
  const items = read as ListLine[];
  const first = items[0];
  if (first?.depth !== depth) return undefined;
  const ordered = first.order !== undefined;
  const start = first.order ?? 1;
  const content: AdfNode[] = [];
  let i = 0;
  while (i < items.length) {
    const head = items[i];
    if (head?.depth !== depth) return undefined;
    if ((head.order !== undefined) !== ordered) return undefined;
    if (ordered && head.order !== start + content.length) return undefined;
    let j = i + 1;
    while (j < items.length && (items[j]?.depth ?? 0) > depth) j++;
    const itemContent: AdfNode[] = [paragraph(head.text)];
    if (j > i + 1) {
      const nested = parseList(lines.slice(i + 1, j), depth + 1);
      if (!nested) return undefined;
      itemContent.push(nested);
    }
    content.push({ type: "listItem", content: itemContent });
    i = j;
  }
  if (ordered) return { type: "orderedList", attrs: { order: start }, content };
  return { type: "bulletList", content };
}

interface InlineRule {
  readonly re: RegExp;
  readonly build: (m: RegExpExecArray) => AdfNode;
}

const WORD = /[\p{L}\p{N}]/u;

const INLINE_RULES: readonly InlineRule[] = [
  { re: /`([^`\n]+)`/y, build: (m) => marked(m[1], { type: "code" }) },
  // A mention node, spelt `[@Display Name](mention:accountId)` (see adf-render.ts).
  {
    re: /\[@([^\]\n]*)\]\(mention:([^()\s]+)\)/y,
    build: (m) => ({ type: "mention", attrs: { id: m[2] ?? "", text: `@${m[1] ?? ""}` } }),
  },
  { re: /\*\*([^*\n]+)\*\*/y, build: (m) => marked(m[1], { type: "strong" }) },
  { re: /~~([^~\n]+)~~/y, build: (m) => marked(m[1], { type: "strike" }) },
  { re: /_([^_\s](?:[^_\n]*[^_\s])?)_/y, build: (m) => marked(m[1], { type: "em" }) },
  {
    re: /\[([^\]\n]+)\]\(([^()\s]+)\)/y,
    build: (m) => marked(m[1], { type: "link", attrs: { href: m[2] } }),
  },
];

function marked(text: string | undefined, mark: AdfMark): AdfNode {
  return { type: "text", text: text ?? "", marks: [mark] };
}

/** Parses one block's inline text; `\n` becomes a hardBreak. */
export function parseInline(raw: string): AdfNode[] {
  const out: AdfNode[] = [];
  let literal = "";
  const flush = (): void => {
    if (literal) out.push({ type: "text", text: literal });
    literal = "";
  };
  let i = 0;
  while (i < raw.length) {
    const ch = raw[i] ?? "";
    if (ch === "\n") {
      flush();
      out.push({ type: "hardBreak" });
      i++;
      continue;
    }
    const hit = matchInline(raw, i);
    if (hit) {
      flush();
      out.push(hit.node);
      i = hit.end;
      continue;
    }
    literal += ch;
    i++;
  }
  flush();
  return out;
}

function matchInline(raw: string, at: number): { node: AdfNode; end: number } | undefined {
  for (const rule of INLINE_RULES) {
    rule.re.lastIndex = at;
    const m = rule.re.exec(raw);
    if (!m) continue;
    const end = at + m[0].length;
    if (m[0].startsWith("_") && !emBoundaries(raw, at, end)) continue;
    return { node: rule.build(m), end };
  }
  return undefined;
}

/** `_em_` only between non-word characters, so `snake_case_name` stays literal. */
function emBoundaries(raw: string, start: number, end: number): boolean {
  const before = raw[start - 1];
  const after = raw[end];
  return !(before !== undefined && WORD.test(before)) && !(after !== undefined && WORD.test(after));
}
