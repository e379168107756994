import { badRequest } from "./api-error.js";
import { childOf, type XmlElement } from "./xml-read.js";
import { isLongDate, isShortDate } from "./xml-write.js";

/**
 * Typed field readers for request bodies. An absent element (or an empty one, for non-text
 * fields) reads as undefined; a bad value is a 400 naming the element and the value.
 */

const INTEGER = /^-?\d{1,15}$/;
const DECIMAL = /^-?(\d{1,15}(\.\d*)?|\.\d+)([eE][-+]?\d{1,3})?$/;

function quote(value: string): string {
  const shown = value.length > 60 ? `${value.slice(0, 60)}…` : value;
  return JSON.stringify(shown);
}

export function expectRoot(el: XmlElement, name: string): void {
  if (el.name !== name) {
    throw badRequest(`Expected a <${name}> document, found <${el.name}>`);
  }
}

/** The text of a child element, or undefined when it is absent. */
export function readText(el: XmlElement, name: string): string | undefined {
  return childOf(el, name)?.text;
}

function nonEmpty(el: XmlElement, name: string): string | undefined {
  const t = childOf(el, name)?.text.trim();
  return t === undefined || t === "" ? undefined : t;
}

export function readRequiredText(el: XmlElement, name: string, parent = el.name): string {
  const t = readText(el, name);
  if (t === undefined || t.trim() === "") {
    throw badRequest(`Missing <${name}> in <${parent}>: it is required`);
  }
  return t;
}

export function readInt(el: XmlElement, name: string, min = 0): number | undefined {
  const t = nonEmpty(el, name);
  if (t === undefined) return undefined;
  if (!INTEGER.test(t) || Number(t) < min) {
    throw badRequest(`Invalid <${name}>: ${quote(t)} is not an integer of at least ${min}`);
  }
  return Number(t);
}

export function readDecimal(el: XmlElement, name: string): number | undefined {
  const t = nonEmpty(el, name);
  if (t === undefined) return undefined;
  const n = Number(t);
  if (!DECIMAL.test(t) || !Number.isFinite(n) || n < 0) {
    throw badRequest(`Invalid <${name}>: ${quote(t)} is not a non-negative decimal number`);
  }
  return n;
}

export function readEnum<T extends string>(
  el: XmlElement,
  name: string,
  values: readonly T[],
): T | undefined {
  const t = nonEmpty(el, name);
  if (t === undefined) return undefined;
  if (!values.includes(t as T)) {
    throw badRequest(`Invalid <${name}>: ${quote(t)} is not one of ${values.join(", ")}`);
  }
  return t as T;
}

export function readShortDate(el: XmlElement, name: string): string | undefined {
  const t = nonEmpty(el, name);
  if (t === undefined) return undefined;
  if (!isShortDate(t)) throw badRequest(`Invalid <${name}>: ${quote(t)} is not a yyyy-MM-dd date`);
  return t;
}

export function readLongDate(el: XmlElement, name: string): string | undefined {
  const t = nonEmpty(el, name);
  if (t === undefined) return undefined;
  if (!isLongDate(t)) {
    throw badRequest(`Invalid <${name}>: ${quote(t)} is not a yyyy-MM-dd HH:mm:ss.SSS timestamp`);
  }
  return t;
}

/** The `<id>` inside a reference element (`<owner><id>3</id></owner>`), or undefined. */
export function readRefId(el: XmlElement, name: string): number | undefined {
  const ref = childOf(el, name);
  if (ref === undefined) return undefined;
  if (ref.children.length === 0 && ref.text.trim() === "") return undefined;
  const id = readInt(ref, "id", 1);
  if (id === undefined) throw badRequest(`Invalid <${name}>: it needs an <id>`);
  return id;
}

/** The texts of the repeated `item` children of a wrapper (`<tags><tag>…</tag></tags>`). */
export function readList(el: XmlElement, wrapper: string, item: string): XmlElement[] | undefined {
  const w = childOf(el, wrapper);
  return w?.children.filter((c) => c.name === item);
}
