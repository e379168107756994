import { XMLParser } from "fast-xml-parser";
import { readPlainXml } from "./xml-tree.js";

/** A parsed XML element: text, or an object of children (repeated children as arrays). */
export type XmlValue = string | XmlNode | XmlValue[];
export interface XmlNode {
  [name: string]: XmlValue;
}

/** Limits that keep a hostile or huge response from exhausting memory. */
export interface XmlLimits {
  /** @default 16 MiB */
  readonly maxBytes: number;
  /** @default 64 */
  readonly maxDepth: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_DEPTH = 64;

/** Why a document was refused before or while parsing. */
export class XmlRejection extends Error {
  readonly snippet: string;
  constructor(message: string, snippet: string) {
    super(message);
    this.name = "XmlRejection";
    this.snippet = snippet;
  }
}

/** Every repeated element of the tinyPM wire, as `parent.child` (tinypm-wire.md). */
const REPEATED = new Set([
  "users.user",
  "assignedUsers.user",
  "projects.project",
  "iterations.iteration",
  "userStories.userStory",
  "tasks.task",
  "comments.comment",
  "timesheet.activity",
  "taskStatuses.status",
  "estimates.value",
  "taskEstimates.value",
  "tags.tag",
]);

/** The child names of REPEATED, so that most elements are told apart without a path lookup. */
const REPEATED_CHILDREN = new Set([...REPEATED].map((key) => key.slice(key.indexOf(".") + 1)));

/** `path`: the parser's path (a string, or with `jPath: false` a view of tags root → element). */
function isRepeated(
  name: string,
  path: string | { toArray(): string[] },
  isAttribute: boolean,
): boolean {
  if (isAttribute || !REPEATED_CHILDREN.has(name)) return false;
  const tags = typeof path === "string" ? path.split(".") : path.toArray();
  const parent = tags[tags.length - 2];
  return parent !== undefined && REPEATED.has(`${parent}.${name}`);
}

const BUILTIN: Readonly<Record<string, string>> = {
  lt: "<",
  gt: ">",
  amp: "&",
  quot: '"',
  apos: "'",
};

/** Decodes the five XML built-in entities and character references, in one pass. */
export function decodeXmlText(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, ref: string) => {
    if (ref.startsWith("#x")) return safeCodePoint(Number.parseInt(ref.slice(2), 16), whole);
    if (ref.startsWith("#")) return safeCodePoint(Number.parseInt(ref.slice(1), 10), whole);
    return BUILTIN[ref] ?? whole;
  });
}

/**
 * Decoded text as a string of its own. V8 keeps a substring of 13 characters or more as a view
 * into the string it was cut from, so one e-mail address kept from a response would keep the
 * whole response document alive as long as the item lives: at 16,000 items that was 29 MB of
 * documents held by the values read from them. Copying the value costs a few microseconds.
 */
export function ownText(text: string): string {
  const decoded = decodeXmlText(text);
  // The concatenation is flattened into a new string by `slice`, which then views only it.
  return decoded.length < 13 ? decoded : (" " + decoded).slice(1);
}

function safeCodePoint(cp: number, fallback: string): string {
  return Number.isFinite(cp) && cp >= 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : fallback;
}

/** Escapes text for an element body; carriage returns as `&#xD;` (as tinyPM/JAXB does). */
function escapeXmlText(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\r/g, "&#xD;");
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // Entities are decoded by decodeXmlText (in ownText): only the five built-ins and character references.
  processEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Callbacks get the parser's path view rather than a path string built for every element.
  jPath: false,
  isArray: (name, jpath, _isLeaf, isAttribute) => isRepeated(name, jpath, isAttribute),
  tagValueProcessor: (_name, value) => ownText(value),
  attributeValueProcessor: (_name, value) => ownText(value),
});

/** The first characters of a document, for error messages. */
export function snippetOf(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/**
 * Refuses what must never reach the parser: oversize documents, DOCTYPE and entity declarations,
 * and nesting deeper than the limit (checked by a linear scan, before any allocation per element).
 */
export function checkHostileXml(text: string, limits: XmlLimits): void {
  if (Buffer.byteLength(text, "utf8") > limits.maxBytes) {
    throw new XmlRejection(`document larger than ${limits.maxBytes} bytes`, snippetOf(text));
  }
  if (/<!DOCTYPE/i.test(text) || /<!ENTITY/i.test(text)) {
    throw new XmlRejection("document has a DOCTYPE or entity declaration", snippetOf(text));
  }
  scanStructure(text, limits.maxDepth);
}

const NAME = /^[^\s/>]+/;

/**
 * One linear pass over the tags: checks that every element closes in order, and that nesting
 * stays within `maxDepth` (stops at once past it, before the parser allocates anything).
 */
function scanStructure(text: string, maxDepth: number): void {
  const open: string[] = [];
  let i = text.indexOf("<");
  while (i !== -1) {
    if (text.startsWith("<![CDATA[", i)) {
      const close = text.indexOf("]]>", i);
      if (close === -1) throw new XmlRejection("malformed XML (unclosed CDATA)", snippetOf(text));
      i = text.indexOf("<", close + 3);
      continue;
    }
    if (text.startsWith("<!--", i)) {
      const close = text.indexOf("-->", i);
      if (close === -1) throw new XmlRejection("malformed XML (unclosed comment)", snippetOf(text));
      i = text.indexOf("<", close + 3);
      continue;
    }
    const end = text.indexOf(">", i);
    if (end === -1) throw new XmlRejection("malformed XML (unclosed tag)", snippetOf(text));
    checkTag(text.slice(i + 1, end), open, maxDepth, text, i);
    i = text.indexOf("<", end);
  }
  if (open.length > 0) {
    throw new XmlRejection(
      `malformed XML (<${open[open.length - 1] ?? ""}> is not closed)`,
      snippetOf(text),
    );
  }
}

/** The line (from 1) of the character at `at`, for messages that point into a document. */
function lineAt(text: string, at: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < at; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

function checkTag(tag: string, open: string[], maxDepth: number, text: string, at: number): void {
  if (tag.startsWith("?") || tag.startsWith("!")) return;
  if (tag.startsWith("/")) {
    const name = tag.slice(1).trim();
    const expected = open.pop();
    if (expected !== name) {
      throw new XmlRejection(
        `malformed XML (</${name}> closes <${expected ?? "nothing"}>, line ${lineAt(text, at)})`,
        snippetOf(text),
      );
    }
    return;
  }
  if (tag.endsWith("/")) return;
  const name = NAME.exec(tag)?.[0] ?? "";
  open.push(name);
  if (open.length > maxDepth) {
    throw new XmlRejection(`elements nested deeper than ${maxDepth}`, snippetOf(text));
  }
}

/** Removes, in place, the whitespace-only text nodes that indentation leaves between elements. */
function dropIndentation(value: XmlValue): XmlValue {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    for (const item of value) dropIndentation(item);
    return value;
  }
  for (const key in value) {
    const child = value[key];
    if (child === undefined) continue;
    if (key === "#text" && typeof child === "string" && child.trim() === "") {
      Reflect.deleteProperty(value, key);
    } else if (typeof child !== "string") dropIndentation(child);
  }
  return value;
}

/** Parses a checked document into `{ rootName, root }`. */
export function parseXml(text: string, limits: XmlLimits): { name: string; root: XmlValue } {
  checkHostileXml(text, limits);
  // tinyPM's documents are plain: read them in one pass; anything else goes to fast-xml-parser.
  const plain = readPlainXml(text, ownText, repeatedChild);
  if (plain !== undefined) return plain;
  return parseXmlWithParser(text);
}

const repeatedChild = (parent: string, name: string): boolean => REPEATED.has(`${parent}.${name}`);

/** fast-xml-parser's reading of a checked document (the path for anything not plain). */
export function parseXmlWithParser(text: string): { name: string; root: XmlValue } {
  let parsed: unknown;
  try {
    parsed = parser.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new XmlRejection(`malformed XML (${snippetOf(reason, 200)})`, snippetOf(text));
  }
  const doc = parsed as XmlNode;
  const names = Object.keys(doc).filter((k) => k !== "#text");
  const name = names[0];
  if (names.length !== 1 || name === undefined) {
    throw new XmlRejection("document has no single root element", snippetOf(text));
  }
  return { name, root: dropIndentation(doc[name] ?? "") };
}

function buildElement(name: string, value: XmlValue, out: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) buildElement(name, item, out);
    return;
  }
  if (typeof value === "string") {
    out.push(value === "" ? `<${name}/>` : `<${name}>${escapeXmlText(value)}</${name}>`);
    return;
  }
  const attrs: string[] = [];
  const children: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    if (typeof child !== "string") buildElement(key, child, children);
    else if (key.startsWith("@_")) {
      attrs.push(` ${key.slice(2)}="${escapeXmlText(child).replace(/"/g, "&quot;")}"`);
    } else if (key === "#text") children.push(escapeXmlText(child));
    else buildElement(key, child, children);
  }
  const head = `<${name}${attrs.join("")}`;
  out.push(children.length === 0 ? `${head}/>` : `${head}>${children.join("")}</${name}>`);
}

/** Serializes `root` under the element `name`, with a declaration. */
export function buildXml(name: string, root: XmlValue): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'];
  buildElement(name, root, out);
  return out.join("");
}
