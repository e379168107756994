/**
 * Jira wiki markup, inline level: a scanner over one line's characters (never regular expression
 * rewrites) producing ADF inline nodes. Marks open only at a word's edge and close only before
 * one, so `snake_case_name` and `a-b-c` stay text; `{*}x{*}` marks inside a word; `\X` escapes
 * any character and `\\` is a line break. What ADF cannot hold (`{color}`, images, `??cite??`,
 * anchors) is kept as literal text and named in `literal`, so callers can report it.
 */
import type { AdfMark, AdfNode } from "./adf.js";

/** Wiki mark characters and the ADF mark each stands for. */
const MARKS: Readonly<Record<string, AdfMark>> = {
  "*": { type: "strong" },
  _: { type: "em" },
  "-": { type: "strike" },
  "+": { type: "underline" },
  "^": { type: "subsup", attrs: { type: "sup" } },
  "~": { type: "subsup", attrs: { type: "sub" } },
};

const WORD = /[\p{L}\p{N}]/u;

/** Characters `\` escapes; before any other character a backslash is itself (`C:\temp`). */
export const ESCAPABLE = "*_-+^~{}[]|!?.#";

export interface InlineResult {
  readonly nodes: AdfNode[];
  /** Constructs kept as literal text because ADF has no place for them. */
  readonly literal: string[];
}

function isWord(ch: string | undefined): boolean {
  return ch !== undefined && WORD.test(ch);
}

function isSpace(ch: string | undefined): boolean {
  return ch === undefined || /\s/.test(ch);
}

/** Where the mark `c` opened at `open` closes (index of the closing char), or -1. */
function closerOf(s: string, open: number, c: string): number {
  for (let j = open + 1; j < s.length; j++) {
    if (s[j] === "\\") {
      j++;
      continue;
    }
    if (j > open + 1 && s[j] === c && !isSpace(s[j - 1]) && !isWord(s[j + 1])) return j;
  }
  return -1;
}

/** Index after the matching `]` of a `[` at `open`, or -1. */
function bracketEnd(s: string, open: number): number {
  for (let j = open + 1; j < s.length; j++) {
    if (s[j] === "\\") j++;
    else if (s[j] === "]") return j + 1;
    else if (s[j] === "[") return -1;
  }
  return -1;
}

const LITERAL_MACROS: readonly [RegExp, string][] = [
  [/^\{color(?::[^}]*)?\}/, "text colour"],
  [/^\{anchor:[^}]*\}/, "anchor"],
];

/** Parses one run of inline wiki text (a paragraph's lines joined by `\n`). */
export function parseWikiInline(s: string): InlineResult {
  const literal: string[] = [];
  return { nodes: parseRun(s, [], literal), literal };
}

function parseRun(s: string, marks: readonly AdfMark[], literal: string[]): AdfNode[] {
  const out: AdfNode[] = [];
  let text = "";
  const flush = (): void => {
    if (text !== "") out.push(textNode(text, marks));
    text = "";
  };
  let i = 0;
  while (i < s.length) {
    const ch = s[i] ?? "";
    const next = s[i + 1];
    if (ch === "\n") {
      flush();
      out.push({ type: "hardBreak" });
      i++;
      continue;
    }
    if (ch === "\\") {
      if (next === "\\") {
        flush();
        out.push({ type: "hardBreak" });
        i += 2;
      } else if (next !== undefined && ESCAPABLE.includes(next)) {
        text += next;
        i += 2;
      } else {
        text += ch;
        i++;
      }
      continue;
    }
    if (ch === "{" && next === "{") {
      const end = s.indexOf("}}", i + 2);
      if (end > i + 2) {
        flush();
        out.push(textNode(s.slice(i + 2, end), [...marks, { type: "code" }]));
        i = end + 2;
        continue;
      }
    }
    if (ch === "{") {
      // `{*}bold{*}`: a mark inside a word.
      const c = s[i + 1];
      if (c !== undefined && c in MARKS && s[i + 2] === "}") {
        const close = s.indexOf(`{${c}}`, i + 3);
        if (close > i + 3) {
          flush();
          const mark = MARKS[c];
          if (mark !== undefined)
            out.push(...parseRun(s.slice(i + 3, close), [...marks, mark], literal));
          i = close + 3;
          continue;
        }
      }
      const macro = LITERAL_MACROS.find(([re]) => re.test(s.slice(i)));
      if (macro !== undefined) literal.push(macro[1]);
    }
    if (ch === "[") {
      const end = bracketEnd(s, i);
      if (end > 0) {
        const inner = s.slice(i + 1, end - 1);
        const node = linkOrMention(inner, marks, literal);
        if (node !== undefined) {
          flush();
          out.push(...node);
          i = end;
          continue;
        }
      }
    }
    if (ch === "!" && /^![^\s!][^!\n]*!/.test(s.slice(i)) && !isWord(s[i - 1]))
      literal.push("image");
    if (ch === "?" && next === "?" && /^\?\?\S.*\S\?\?/.test(s.slice(i))) literal.push("citation");
    if (ch in MARKS && !isWord(s[i - 1]) && !isSpace(next) && next !== ch) {
      const close = closerOf(s, i, ch);
      if (close > 0) {
        flush();
        const mark = MARKS[ch];
        if (mark !== undefined)
          out.push(...parseRun(s.slice(i + 1, close), [...marks, mark], literal));
        i = close + 1;
        continue;
      }
    }
    text += ch;
    i++;
  }
  flush();
  return merge(out);
}

function linkOrMention(
  inner: string,
  marks: readonly AdfMark[],
  literal: string[],
): AdfNode[] | undefined {
  if (inner.startsWith("~")) {
    const id = inner.slice(1);
    if (!/^[^\s|\]]+$/.test(id)) return undefined;
    return [{ type: "mention", attrs: { id, text: `@${id.replace(/^accountid:/, "")}` } }];
  }
  const bar = inner.lastIndexOf("|");
  const label = bar < 0 ? inner : inner.slice(0, bar);
  const href = (bar < 0 ? inner : inner.slice(bar + 1)).trim();
  if (!/^(?:https?:\/\/|mailto:|ftp:\/\/|file:\/\/)\S+$/.test(href)) {
    if (/^[#^]/.test(href)) literal.push(href.startsWith("^") ? "attachment link" : "anchor link");
    return undefined;
  }
  const link: AdfMark = { type: "link", attrs: { href } };
  if (bar < 0) return [textNode(href, [...marks, link])];
  return parseRun(label, [...marks, link], literal);
}

function textNode(text: string, marks: readonly AdfMark[]): AdfNode {
  return marks.length === 0 ? { type: "text", text } : { type: "text", text, marks: [...marks] };
}

/** Adjacent text nodes with the same marks joined (what a parse of the rendered text gives). */
function merge(nodes: readonly AdfNode[]): AdfNode[] {
  const out: AdfNode[] = [];
  for (const node of nodes) {
    const last = out[out.length - 1];
    if (
      last?.type === "text" &&
      node.type === "text" &&
      JSON.stringify(last.marks ?? []) === JSON.stringify(node.marks ?? [])
    ) {
      out[out.length - 1] = { ...last, text: `${last.text ?? ""}${node.text ?? ""}` };
    } else out.push(node);
  }
  return out;
}
