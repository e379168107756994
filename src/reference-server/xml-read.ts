/**
 * A small, strict and safe XML reader for request bodies. It builds a light element tree,
 * reports errors with line and column, and refuses DOCTYPE and entity declarations outright
 * (no expansion, no external entities, no "billion laughs"). Attributes are checked and ignored.
 */

export interface XmlElement {
  readonly name: string;
  readonly children: XmlElement[];
  /** The element's character data (concatenated text and CDATA), entities resolved. */
  text: string;
}

export class XmlSyntaxError extends Error {
  readonly line: number;
  readonly column: number;
  constructor(reason: string, line: number, column: number) {
    super(`Malformed XML at line ${line}, column ${column}: ${reason}`);
    this.line = line;
    this.column = column;
  }
}

const PREDEFINED: Readonly<Record<string, string>> = {
  lt: "<",
  gt: ">",
  amp: "&",
  quot: '"',
  apos: "'",
};
const NAME = /[A-Za-z_:\u00C0-\uFFFF][-A-Za-z0-9_.:\u00B7\u00C0-\uFFFF]*/y;
const SPACE = /[ \t\r\n]*/y;

export const DEFAULT_MAX_DEPTH = 64;

/** Parses a whole document and returns its root element. */
export function parseXml(source: string, maxDepth = DEFAULT_MAX_DEPTH): XmlElement {
  return new Reader(source, maxDepth).document();
}

class Reader {
  private readonly src: string;
  private readonly maxDepth: number;
  private i = 0;

  constructor(src: string, maxDepth: number) {
    this.src = src.startsWith("\uFEFF") ? src.slice(1) : src;
    this.maxDepth = maxDepth;
  }

  document(): XmlElement {
    this.misc();
    if (!this.src.startsWith("<", this.i) || this.i >= this.src.length) {
      this.fail("expected a root element");
    }
    const root = this.element(1);
    this.misc();
    if (this.i < this.src.length) this.fail("content after the root element");
    return root;
  }

  /** Whitespace, comments and processing instructions outside the root element. */
  private misc(): void {
    for (;;) {
      this.space();
      if (this.src.startsWith("<?", this.i)) this.pi();
      else if (this.src.startsWith("<!--", this.i)) this.comment();
      else if (this.src.startsWith("<!", this.i)) this.declaration();
      else return;
    }
  }

  private element(depth: number): XmlElement {
    if (depth > this.maxDepth) this.fail(`elements nested deeper than ${this.maxDepth}`);
    this.i++; // '<'
    const name = this.name();
    this.attributes();
    const el: XmlElement = { name, children: [], text: "" };
    if (this.src.startsWith("/>", this.i)) {
      this.i += 2;
      return el;
    }
    this.expect(">");
    this.content(el, depth);
    return el;
  }

  private content(el: XmlElement, depth: number): void {
    const parts: string[] = [];
    for (;;) {
      if (this.i >= this.src.length) this.fail(`missing end tag </${el.name}>`);
      const lt = this.src.indexOf("<", this.i);
      const end = lt < 0 ? this.src.length : lt;
      if (end > this.i) parts.push(this.chars(end));
      if (lt < 0) continue;
      if (this.src.startsWith("</", this.i)) {
        const tagStart = this.i;
        this.i += 2;
        const name = this.name();
        if (name !== el.name) {
          this.fail(`end tag </${name}> does not match <${el.name}>`, tagStart - this.i);
        }
        this.space();
        this.expect(">");
        el.text = parts.join("");
        return;
      }
      if (this.src.startsWith("<!--", this.i)) this.comment();
      else if (this.src.startsWith("<![CDATA[", this.i)) parts.push(this.cdata());
      else if (this.src.startsWith("<!", this.i)) this.declaration();
      else if (this.src.startsWith("<?", this.i)) this.pi();
      else el.children.push(this.element(depth + 1));
    }
  }

  /** Character data up to `end`, with references resolved. */
  private chars(end: number): string {
    const raw = this.src.slice(this.i, end);
    if (!raw.includes("&")) {
      this.i = end;
      return raw;
    }
    let out = "";
    while (this.i < end) {
      const amp = this.src.indexOf("&", this.i);
      if (amp < 0 || amp >= end) {
        out += this.src.slice(this.i, end);
        this.i = end;
        break;
      }
      out += this.src.slice(this.i, amp);
      this.i = amp;
      out += this.reference(end);
    }
    return out;
  }

  private reference(end: number): string {
    const semi = this.src.indexOf(";", this.i);
    if (semi < 0 || semi >= end) this.fail("'&' must start an entity reference such as &amp;");
    const ref = this.src.slice(this.i + 1, semi);
    let value: string | undefined;
    if (/^#[0-9]+$/.test(ref)) value = codePoint(Number(ref.slice(1)));
    else if (/^#x[0-9A-Fa-f]+$/.test(ref)) value = codePoint(parseInt(ref.slice(2), 16));
    else value = PREDEFINED[ref];
    if (value === undefined) this.fail(`undefined entity reference &${ref};`);
    this.i = semi + 1;
    return value;
  }

  private attributes(): void {
    const seen = new Set<string>();
    for (;;) {
      const before = this.i;
      this.space();
      const c = this.src[this.i];
      if (c === ">" || c === "/" || c === undefined) return;
      if (this.i === before) this.fail("expected whitespace before an attribute");
      const name = this.name();
      if (seen.has(name)) this.fail(`duplicate attribute ${name}`);
      seen.add(name);
      this.space();
      this.expect("=");
      this.space();
      const quote = this.src[this.i];
      if (quote !== '"' && quote !== "'") this.fail("attribute value must be quoted");
      const close = this.src.indexOf(quote, this.i + 1);
      if (close < 0) this.fail("unterminated attribute value");
      if (this.src.slice(this.i + 1, close).includes("<")) this.fail("'<' in an attribute value");
      this.i++;
      this.chars(close);
      this.i = close + 1;
    }
  }

  private comment(): void {
    const close = this.src.indexOf("-->", this.i + 4);
    if (close < 0) this.fail("unterminated comment");
    this.i = close + 3;
  }

  private cdata(): string {
    const start = this.i + 9;
    const close = this.src.indexOf("]]>", start);
    if (close < 0) this.fail("unterminated CDATA section");
    this.i = close + 3;
    return this.src.slice(start, close);
  }

  private pi(): void {
    const close = this.src.indexOf("?>", this.i + 2);
    if (close < 0) this.fail("unterminated processing instruction");
    this.i = close + 2;
  }

  private declaration(): never {
    if (this.src.startsWith("<!DOCTYPE", this.i)) {
      this.fail("DOCTYPE declarations are not allowed");
    }
    if (this.src.startsWith("<!ENTITY", this.i)) this.fail("entity declarations are not allowed");
    this.fail("unexpected markup declaration");
  }

  private name(): string {
    NAME.lastIndex = this.i;
    const m = NAME.exec(this.src);
    if (!m) this.fail("expected a name");
    this.i += m[0].length;
    return m[0];
  }

  private space(): void {
    SPACE.lastIndex = this.i;
    SPACE.exec(this.src);
    this.i = SPACE.lastIndex;
  }

  private expect(c: string): void {
    if (this.src[this.i] !== c) this.fail(`expected '${c}'`);
    this.i++;
  }

  private fail(reason: string, shift = 0): never {
    const at = Math.max(0, Math.min(this.i + shift, this.src.length));
    let line = 1;
    let lineStart = 0;
    for (let k = 0; k < at; k++) {
      if (this.src.charCodeAt(k) === 10) {
        line++;
        lineStart = k + 1;
      }
    }
    throw new XmlSyntaxError(reason, line, at - lineStart + 1);
  }
}

function codePoint(n: number): string | undefined {
  if (n === 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return undefined;
  return String.fromCodePoint(n);
}

/** The first child element named `name`. */
export function childOf(el: XmlElement, name: string): XmlElement | undefined {
  for (const c of el.children) if (c.name === name) return c;
  return undefined;
}
