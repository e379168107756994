import { Lexer } from "marked";
import { offsetMap } from "./mentions.js";

/**
 * A Markdown text as its top-level blocks, exactly as written (`marked`'s lexer: paragraphs,
 * lists, tables, fenced and indented code, HTML blocks such as `<details>` and comments, and the
 * blank space between them). The blocks joined give the text back byte for byte, CRLF included.
 */
export function markdownBlocks(text: string): string[] {
  if (text === "") return [];
  const norm = text.replace(/\r\n?/g, "\n");
  const back = offsetMap(text);
  const out: string[] = [];
  let at = 0;
  for (const token of Lexer.lex(norm)) {
    const start = norm.indexOf(token.raw, at);
    if (token.raw === "" || start < 0) continue;
    const end = start + token.raw.length;
    out.push(text.slice(back[at] ?? text.length, back[end] ?? text.length));
    at = end;
  }
  // Anything the lexer did not give back (it trims nothing today) stays with the last block.
  const rest = text.slice(back[at] ?? text.length);
  if (rest !== "") out.push(rest);
  return out;
}
