/**
 * XML writing helpers for the reference server: string building, no DOM. Text is escaped the way
 * JAXB writes it (`&`, `<`, `>` as entities, carriage return as `&#xD;`); null fields are omitted.
 */

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

const NEEDS_ESCAPE = /[&<>\r]/;
const ESCAPE_ALL = /[&<>\r]/g;
const REPLACEMENTS: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "\r": "&#xD;",
};

/** Escapes character data. */
export function escapeText(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(ESCAPE_ALL, (c) => REPLACEMENTS[c] ?? c);
}

/** `<name>escaped text</name>`, or nothing when the value is null or undefined. */
export function textEl(name: string, value: string | null | undefined): string {
  if (value === undefined || value === null) return "";
  return `<${name}>${escapeText(value)}</${name}>`;
}

/** An integer or boolean element, or nothing when the value is absent. */
export function plainEl(name: string, value: number | boolean | null | undefined): string {
  if (value === undefined || value === null) return "";
  return `<${name}>${String(value)}</${name}>`;
}

/** A decimal element, always with a point (`3.0`, `0.5`), or nothing when absent. */
export function decimalEl(name: string, value: number | null | undefined): string {
  if (value === undefined || value === null) return "";
  return `<${name}>${formatDecimal(value)}</${name}>`;
}

/** A wrapper around already-rendered children; written empty (`<tags/>`) when there are none. */
export function listEl(name: string, children: string): string {
  return children === "" ? `<${name}/>` : `<${name}>${children}</${name}>`;
}

/** Formats a decimal with a point, as Java's `Float.toString` does for ordinary values. */
export function formatDecimal(value: number): string {
  return Number.isInteger(value) ? `${value}.0` : String(value);
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

/** A Date's local calendar day as `yyyy-MM-dd`. */
export function formatShortDate(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** A Date in local time as `yyyy-MM-dd HH:mm:ss.SSS`. */
export function formatLongDate(date: Date): string {
  return (
    `${formatShortDate(date)} ${pad(date.getHours())}:${pad(date.getMinutes())}:` +
    `${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`
  );
}

/** Adds whole days to a `yyyy-MM-dd` calendar date (pure calendar arithmetic, no time zone). */
export function addDays(shortDate: string, days: number): string {
  const [y, m, d] = shortDate.split("-").map(Number);
  const t = new Date(Date.UTC(y ?? 1970, (m ?? 1) - 1, d ?? 1) + days * 86_400_000);
  return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
}

const SHORT_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const LONG_DATE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{3})$/;

/** Whether a string is a real calendar date in `yyyy-MM-dd`. */
export function isShortDate(text: string): boolean {
  const m = SHORT_DATE.exec(text);
  if (!m) return false;
  return addDays(text, 0) === text && Number(m[2]) >= 1 && Number(m[2]) <= 12;
}

/** Whether a string is a valid `yyyy-MM-dd HH:mm:ss.SSS` timestamp. */
export function isLongDate(text: string): boolean {
  const m = LONG_DATE.exec(text);
  if (!m) return false;
  return (
    isShortDate(text.slice(0, 10)) && Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6]) < 60
  );
}
