import type { ReportValue } from "./types.js";

/** Options of {@link formatValue}. */
export interface FormatValueOptions {
  /**
   * The longest text shown, in characters; longer values are cut and end with `…`.
   * @default 60
   */
  readonly max?: number;
}

/** Shown for `null` (a field without a value). */
export const NO_VALUE = "—";

/**
 * A field value as people read it in every report format: strings quoted (JSON escapes, so a
 * newline shows as `\n`), lists joined with `, `, objects as `{ key: value }`, `null` as `—`,
 * everything shortened to `max` characters.
 * @example formatValue(["bug", "ui"]) // '"bug", "ui"'
 */
export function formatValue(value: ReportValue, opts: FormatValueOptions = {}): string {
  return shorten(show(value), opts.max ?? 60);
}

/** `text` cut to `max` characters, ending with `…` when cut. */
export function shorten(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, Math.max(1, max - 1)).join("")}…`;
}

function show(value: ReportValue): string {
  if (value === null) return NO_VALUE;
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (isList(value)) return value.length === 0 ? "(empty list)" : value.map(show).join(", ");
  const entries = Object.entries(value);
  if (entries.length === 0) return "{}";
  return `{ ${entries.map(([k, v]) => `${k}: ${show(v)}`).join(", ")} }`;
}

function isList(value: ReportValue): value is readonly ReportValue[] {
  return Array.isArray(value);
}
