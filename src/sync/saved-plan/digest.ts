import { hash } from "node:crypto";
import type { WorkItem } from "../../core/model.js";

/**
 * A short content digest of a JSON-like value: keys sorted, `undefined` members left out, so that
 * the same content read twice gives the same digest however it was assembled.
 */
export function digestOf(value: unknown): string {
  return hash("sha256", canonical(value), "hex").slice(0, 16);
}

function canonical(value: unknown): string {
  if (value === undefined || value === null) return "null";
  if (typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`)
    .join(",")}}`;
}

/** What an item's digests leave out: who and where it is, and times only the system keeps. */
const NOT_CONTENT = new Set(["system", "kind", "id", "url", "updatedAt"]);

/**
 * The digest of each part of an item a plan read (its fields, parent, comments, time entries,
 * hidden metadata, marker, rich description), by part name: a changed part can be named.
 */
export function itemDigests(item: WorkItem): Record<string, string> {
  const out: Record<string, string> = {};
  const record = item as unknown as Record<string, unknown>;
  for (const key of Object.keys(record).sort()) {
    if (NOT_CONTENT.has(key) || record[key] === undefined) continue;
    out[key] = digestOf(record[key]);
  }
  return out;
}

/** The names of the parts whose digests differ (present on one side only counts as differing). */
export function changedParts(
  saved: Readonly<Record<string, string>>,
  now: Readonly<Record<string, string>>,
): string[] {
  const names = new Set([...Object.keys(saved), ...Object.keys(now)]);
  return [...names].filter((n) => saved[n] !== now[n]).sort();
}
