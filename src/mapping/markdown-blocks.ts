import { Lexer, type Token, type Tokens } from "marked";
import { offsetMap } from "./mentions.js";

/**
 * A Markdown text as its blocks, exactly as written (`marked`'s lexer: paragraphs, fenced and
 * indented code, HTML blocks such as `<details>` and comments, and the blank space between them),
 * with lists as their items (nested lists stay with their item: out of it, a line indented four
 * spaces would read as code) and tables as their rows, so that an edit of one item or row rewrites
 * that item or row only. The blocks joined give the text back byte for byte, CRLF included.
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
    at = s + item.raw.length;
  }
  return cuts;
}

/** The start of every line of `raw` after its first. */
function lineCuts(raw: string, start: number): number[] {
  const cuts: number[] = [];
  for (let i = raw.indexOf("\n"); i >= 0 && i + 1 < raw.length; i = raw.indexOf("\n", i + 1))
    cuts.push(start + i + 1);
  return cuts;
}
