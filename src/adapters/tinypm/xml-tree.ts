/**
 * A one-pass reader for the plain XML tinyPM sends (elements holding either text or child
 * elements, indentation between them): it builds the same tree as fast-xml-parser with the wire's
 * options followed by dropping indentation, at a fraction of the cost. Anything else (attributes,
 * CDATA, comments, mixed content, processing instructions after the declaration, several roots,
 * unusual names) makes it give up with `undefined`, and the caller uses fast-xml-parser.
 * The document has already passed the hostile-XML checks (size, DOCTYPE, nesting, balance).
 */
import type { XmlNode, XmlValue } from "./wire.js";

/** Plain names only; nothing that is a property of every object. */
const PLAIN_NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;

interface Frame {
  readonly name: string;
  /** Child elements so far (`undefined` while the element has none). */
  node: XmlNode | undefined;
  /** Where the text since the last tag inside this element starts. */
  textStart: number;
}

function plainName(name: string): boolean {
  return PLAIN_NAME.test(name) && !(name in Object.prototype);
}

/** Adds a child: a second child of the same name makes an array, as fast-xml-parser does. */
function addChild(
  parent: XmlNode,
  parentName: string,
  name: string,
  value: XmlValue,
  repeated: (parent: string, name: string) => boolean,
): void {
  const existing = parent[name];
  if (existing === undefined) {
    parent[name] = repeated(parentName, name) ? [value] : value;
  } else if (Array.isArray(existing)) existing.push(value);
  else parent[name] = [existing, value];
}

/**
 * The root element's name and value, or `undefined` when the document uses anything beyond plain
 * elements and text (the caller then parses it with fast-xml-parser).
 */
export function readPlainXml(
  source: string,
  decode: (text: string) => string,
  repeated: (parent: string, name: string) => boolean,
): { name: string; root: XmlValue } | undefined {
  // XML end-of-line handling, as fast-xml-parser does it: CR LF and lone CR read as LF.
  const text = source.includes("\r") ? source.replace(/\r\n?/g, "\n") : source;
  const stack: Frame[] = [];
  let root: { name: string; root: XmlValue } | undefined;
  let i = text.indexOf("<");
  if (i < 0 || text.slice(0, i).trim() !== "") return undefined;
  if (text.startsWith("<?xml", i)) {
    const close = text.indexOf("?>", i);
    if (close < 0) return undefined;
    i = text.indexOf("<", close + 2);
    if (i < 0 || text.slice(close + 2, i).trim() !== "") return undefined;
  }

  const finish = (name: string, value: XmlValue): boolean => {
    const parent = stack[stack.length - 1];
    if (parent === undefined) {
      root = { name, root: value };
      return true;
    }
    parent.node ??= {};
    addChild(parent.node, parent.name, name, value, repeated);
    return true;
  };

  while (i !== -1) {
    const end = text.indexOf(">", i);
    if (end < 0) return undefined;
    const second = text.charCodeAt(i + 1);
    // `!` (comment, CDATA) and `?` (a processing instruction): leave those to the full parser.
    if (second === 33 || second === 63) return undefined;
    const top = stack[stack.length - 1];
    // Text before a tag, inside an element that has or gets a child, is indentation only.
    const before = top === undefined ? "" : text.slice(top.textStart, i);
    if (second === 47) {
      const frame = stack.pop();
      if (text.slice(i + 2, end).trim() !== frame?.name) return undefined;
      if (frame.node !== undefined && before.trim() !== "") return undefined;
      finish(frame.name, frame.node ?? decode(before));
    } else {
      if (top !== undefined && before.trim() !== "") return undefined;
      const selfClosing = text.charCodeAt(end - 1) === 47;
      const name = text.slice(i + 1, selfClosing ? end - 1 : end).trimEnd();
      if (!plainName(name)) return undefined;
      if (top !== undefined) top.node ??= {};
      if (selfClosing) finish(name, "");
      else stack.push({ name, node: undefined, textStart: end + 1 });
    }
    const current = stack[stack.length - 1];
    if (current === undefined) {
      // The root is complete: only whitespace may follow.
      return text.slice(end + 1).trim() === "" ? root : undefined;
    }
    current.textStart = end + 1;
    i = text.indexOf("<", end + 1);
  }
  return undefined;
}
