/**
 * Mention and reference hygiene for text that comes from tinyPM: an invisible word joiner
 * (U+2060) after `@` or `#` so that GitHub notifies no one and links no issue. Markdown structure
 * comes from `marked`'s lexer: code (fenced, indented, inline) and link destinations are never
 * touched, so a copied `@retry` decorator still copies out as valid Python.
 */
import { Lexer, type Token, type Tokens } from "marked";

/** U+2060 WORD JOINER: invisible, and breaks GitHub's `@login` and `#123` autolinks. */
export const WORD_JOINER = "\u2060";

/** A mention (`@ana`) or reference (`#12`) found in text, for {@link EscapeOptions.rewrite}. */
export interface MentionRef {
  readonly sigil: "@" | "#";
  /** What follows the sigil: a login, a name or a number. */
  readonly name: string;
  /** False when a letter, digit or `_` stands right before the sigil (`bob@example`): no mention. */
  readonly wordStart?: boolean | undefined;
}

export interface EscapeOptions {
  /**
   * What to write instead of making a mention inert (e.g. a matched target login, to make it a real
   * mention); `undefined` escapes it. Only asked for mentions that carry no joiner yet.
   */
  readonly rewrite?: ((ref: MentionRef) => string | undefined) | undefined;
}

type Range = readonly [start: number, end: number];

const MENTION = /([@#])(\u2060*)([\p{L}\p{N}_-]*)/gu;
const RESTORE = /([@#])\u2060/gu;

/**
 * Makes every `@name` and `#123` outside code and link destinations inert, exactly invertibly
 * (also on texts that already hold joiners: a joiner right after `@`/`#` gets one more).
 * @example escapeMentions("ping @ana, `@retry`") // "ping @\u2060ana, `@retry`"
 */
export function escapeMentions(text: string, options: EscapeOptions = {}): string {
  if (!text.includes("@") && !text.includes("#")) return text;
  const ranges = protectedRanges(text);
  return text.replace(
    MENTION,
    (match: string, sigil: string, joiners: string, name: string, at: number) => {
      if (joiners === "" && name === "") return match;
      if (inside(ranges, at)) return match;
      if (joiners === "" && options.rewrite !== undefined) {
        const ref = { sigil: sigil as "@" | "#", name, wordStart: startsWord(text, at) };
        const instead = options.rewrite(ref);
        if (instead !== undefined) return instead;
      }
      return `${sigil}${WORD_JOINER}${joiners}${name}`;
    },
  );
}

/**
 * Rewrites live `@name` / `#123` outside code and link destinations where `rewrite` answers, and
 * leaves every other character alone (no escaping): for targets where plain text never notifies.
 */
export function rewriteMentions(
  text: string,
  rewrite: (ref: MentionRef) => string | undefined,
): string {
  if (!text.includes("@") && !text.includes("#")) return text;
  const ranges = protectedRanges(text);
  return text.replace(
    MENTION,
    (match: string, sigil: string, joiners: string, name: string, at: number) => {
      if (joiners !== "" || name === "" || inside(ranges, at)) return match;
      return rewrite({ sigil: sigil as "@" | "#", name, wordStart: startsWord(text, at) }) ?? match;
    },
  );
}

/** Whether the sigil at `at` starts a word (no letter, digit or `_` right before it). */
function startsWord(text: string, at: number): boolean {
  return at === 0 || !/[\p{L}\p{N}_]/u.test(text[at - 1] ?? "");
}

/** The exact inverse of {@link escapeMentions} without `rewrite`. */
export function restoreMentions(text: string): string {
  if (!text.includes(WORD_JOINER)) return text;
  const ranges = protectedRanges(text);
  return text.replace(RESTORE, (match: string, sigil: string, at: number) =>
    inside(ranges, at) ? match : sigil,
  );
}

/**
 * Live mentions and references outside code (`@ana`, `#12`), in order, for reports; only those
 * starting in `[from, to)` when given (a part of `text` read in its context).
 */
export function liveMentions(text: string, from = 0, to = text.length): string[] {
  if (!text.includes("@") && !text.includes("#")) return [];
  const ranges = protectedRanges(text);
  const out: string[] = [];
  for (const m of text.matchAll(MENTION)) {
    if (m.index < from || m.index >= to) continue;
    if (m[2] !== "" || m[3] === "" || m[3] === undefined) continue;
    if (!inside(ranges, m.index)) out.push(`${m[1] ?? ""}${m[3]}`);
  }
  return out;
}

function inside(ranges: readonly Range[], at: number): boolean {
  return ranges.some(([s, e]) => at >= s && at < e);
}

/**
 * The character ranges of `text` that are code or link destinations. The lexer sees the text
 * with CRLF as LF; offsets are mapped back to the original text.
 */
export function protectedRanges(text: string): Range[] {
  const norm = text.replace(/\r\n?/g, "\n");
  const back = offsetMap(text);
  const out: Range[] = [];
  let cursor = 0;
  for (const token of Lexer.lex(norm)) cursor = walk(norm, token, cursor, norm.length, out);
  return out.map(([s, e]) => [back[s] ?? text.length, back[e] ?? text.length] as const);
}

/** Index in the text with CRLF as LF (as the lexer sees it) → index in the original text. */
export function offsetMap(text: string): number[] {
  const map: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\r" && text[i + 1] === "\n") continue;
    map.push(i);
  }
  map.push(text.length);
  return map;
}

function walk(norm: string, token: Token, from: number, to: number, out: Range[]): number {
  const raw = token.raw;
  const at = raw === "" ? -1 : norm.indexOf(raw, from);
  if (at < 0 || at + raw.length > to) {
    // Nested in a blockquote or a list item, the lexer's raw lacks the `> ` prefixes or the
    // item's indentation: find a code block line by line, and anything else by its children.
    if (token.type === "code") protectLines(norm, raw, from, to, out);
    let c = from;
    for (const child of childrenOf(token)) c = walk(norm, child, c, to, out);
    return c;
  }
  const end = at + raw.length;
  if (token.type === "code" || token.type === "codespan") {
    out.push([at, end]);
    return end;
  }
  if (token.type === "link") {
    const link = token as Tokens.Link;
    if (!raw.startsWith("[")) {
      out.push([at, end]); // an autolink or a bare URL: all destination
      return end;
    }
    const textEnd = at + 1 + link.text.length;
    out.push([textEnd, end]);
    let c = at + 1;
    for (const child of link.tokens) c = walk(norm, child, c, textEnd, out);
    return end;
  }
  let c = at;
  for (const child of childrenOf(token)) c = walk(norm, child, c, end, out);
  return end;
}

function protectLines(norm: string, raw: string, from: number, to: number, out: Range[]): void {
  let c = from;
  for (const line of raw.split("\n")) {
    if (line === "") continue;
    const at = norm.indexOf(line, c);
    if (at < 0 || at + line.length > to) return;
    out.push([at, at + line.length]);
    c = at + line.length;
  }
}

function childrenOf(token: Token): Token[] {
  switch (token.type) {
    case "list":
      return (token as Tokens.List).items;
    case "table": {
      const table = token as Tokens.Table;
      return [...table.header, ...table.rows.flat()].flatMap((cell) => cell.tokens);
    }
    default:
      return "tokens" in token && Array.isArray(token.tokens) ? token.tokens : [];
  }
}
