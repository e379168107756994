import { Lexer, type Token, type Tokens } from "marked";
import { offsetMap } from "./mentions.js";

/**
 * A Markdown text as its blocks, exactly as written (`marked`'s lexer: paragraphs, fenced and
 * indented code, HTML blocks such as `<details>` and comments, and the blank space between them),
 * with lists as their items, nested items (any depth) as units of their own from their first line
 * on, and tables as their rows, so that an edit of one item or row rewrites that item or row only.
 * The blocks joined give the text back byte for byte, CRLF included. A nested item read alone
 * would be code (indented four spaces), so transforms run on whole texts (see `linesOf`).
 */
export function markdownBlocks(text: string): string[] {
  if (text === "") return [];
  const norm = text.replace(/\r\n?/g, "\n");
  const back = offsetMap(text);
  const cuts: number[] = [];
  let at = 0;
  for (const token of Lexer.lex(norm)) {
    const start = norm.indexOf(token.raw, at);
    if (token.raw === "" || start < 0) continue;
    cuts.push(...innerCuts(token, start));
    at = start + token.raw.length;
    cuts.push(at);
  }
  const out: string[] = [];
  let from = 0;
  for (const raw of cuts) {
    // A block ends with its line's end, so that a changed line leaves the next block alone.
    const cut = norm[raw - 1] !== "\n" && norm[raw] === "\n" ? raw + 1 : raw;
    if (cut <= from) continue;
    out.push(text.slice(back[from] ?? text.length, back[cut] ?? text.length));
    from = cut;
  }
  // Anything the lexer did not give back (it trims nothing today) stays with the last block.
  const rest = text.slice(back[from] ?? text.length);
  if (rest !== "") out.push(rest);
  return out;
}

/** Where a list or table token is cut into units (offsets in the whole text). */
function innerCuts(token: Token, start: number): number[] {
  if (token.type === "table") return lineCuts(token.raw, start);
  if (token.type !== "list") return [];
  const cuts: number[] = [];
  let at = 0;
  for (const item of (token as Tokens.List).items) {
    const s = token.raw.indexOf(item.raw, at);
    if (s < 0 || item.raw === "") continue;
    cuts.push(start + s);
    // Nested items: their raw text is dedented, so they are found by their first line.
    let from = s + firstLine(item.raw).length;
    for (const line of nestedFirstLines(item)) {
      const found = lineStart(token.raw, line, from, s + item.raw.length);
      if (found < 0) continue;
      cuts.push(start + found);
      from = found + 1;
    }
    at = s + item.raw.length;
  }
  return cuts;
}

/** The first lines of the items of every list nested in `item`, at any depth, in order. */
function nestedFirstLines(item: Tokens.ListItem): string[] {
  const out: string[] = [];
  for (const t of item.tokens) {
    if (t.type !== "list") continue;
    for (const sub of (t as Tokens.List).items) {
      if (sub.raw === "") continue;
      out.push(firstLine(sub.raw));
      out.push(...nestedFirstLines(sub));
    }
  }
  return out;
}

function firstLine(raw: string): string {
  const end = raw.indexOf("\n");
  return (end < 0 ? raw : raw.slice(0, end)).trimEnd();
}

/** Where the line holding `line` after its indentation starts in `raw[from, to)`, or -1. */
function lineStart(raw: string, line: string, from: number, to: number): number {
  for (let i = raw.indexOf(line, from); i >= 0 && i < to; i = raw.indexOf(line, i + 1)) {
    let b = i;
    while (b > 0 && (raw[b - 1] === " " || raw[b - 1] === "\t")) b--;
    if (b === 0 || raw[b - 1] === "\n") return b;
  }
  return -1;
}

/** The start of every line of `raw` after its first. */
function lineCuts(raw: string, start: number): number[] {
  const cuts: number[] = [];
  for (let i = raw.indexOf("\n"); i >= 0 && i + 1 < raw.length; i = raw.indexOf("\n", i + 1))
    cuts.push(start + i + 1);
  return cuts;
}
