import { hash } from "node:crypto";
import type { JsonValue, Marker } from "./model.js";

/**
 * Identity helpers shared by the engine and the adapters: which tinyPM an item belongs to, and
 * whether a marker is this job's.
 */

/** The version of the markers this build writes. */
export const MARKER_VERSION = 2;

/**
 * A stable, non-reversible fingerprint of a tinyPM base URL: scheme, host and path, lower-cased,
 * without a trailing slash, hashed. Two spellings of one address give one fingerprint; the URL
 * itself never appears in a marker.
 */
export function instanceFingerprint(baseUrl: string): string {
  let canonical = baseUrl.trim();
  try {
    const u = new URL(canonical);
    const path = u.pathname.replace(/\/+$/, "");
    canonical = `${u.protocol}//${u.host}${path}`.toLowerCase();
  } catch {
    canonical = canonical.replace(/\/+$/, "").toLowerCase();
  }
  return hash("sha256", `tinypm-sync:${canonical}`, "hex").slice(0, 16);
}

/** Who a job is: its name, and (when known) which tinyPM and which project it syncs. */
interface JobIdentity {
  readonly name: string;
  readonly instance?: string | undefined;
  readonly project?: string | undefined;
}

/** How a marker relates to a job. */
type MarkerOwner = "none" | "ours" | "foreign";

/**
 * `ours` when the marker names this job and, where both sides say it, the same tinyPM and
 * project (a version-1 marker names only the job). Any other marker is `foreign`.
 */
export function markerOwner(marker: Marker | undefined, job: JobIdentity): MarkerOwner {
  if (marker === undefined) return "none";
  if (marker.job !== job.name) return "foreign";
  // A copy `undo` closed instead of deleting is no job's any more: left alone like another's.
  // A person's item whose import `undo` took back is theirs again, as if never marked.
  if (marker.undone !== undefined) return marker.origin === "tinypm" ? "foreign" : "none";
  const differs = (a: string | undefined, b: string | undefined): boolean =>
    a !== undefined && b !== undefined && a !== b;
  if (differs(marker.instance, job.instance) || differs(marker.project, job.project))
    return "foreign";
  return "ours";
}

/**
 * The marker that still counts: none for a person's target item whose import `undo` took back
 * (it is imported again like an unmarked item); the marker itself otherwise.
 */
export function liveMarker(marker: Marker | undefined): Marker | undefined {
  return marker?.undone !== undefined && marker.origin !== "tinypm" ? undefined : marker;
}

/** A short digest of one normalised field value (`undefined` and `null` are one value). */
export function valueDigest(value: JsonValue | undefined): string {
  return hash("sha256", stable(value ?? null), "hex").slice(0, 8);
}

/** Digests of every named field of a normalised field record. */
export function fieldDigests(
  fields: Readonly<Record<string, JsonValue>>,
  names: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) out[n] = valueDigest(fields[n]);
  return out;
}

function stable(value: JsonValue): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${(value as readonly JsonValue[]).map(stable).join(",")}]`;
  const obj = value as Record<string, JsonValue>;
  return `{${Object.keys(obj)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stable(obj[k] ?? null)}`)
    .join(",")}}`;
}

/**
 * A copy of a JSON value without personal data: every `email` key is dropped, and so is `name`
 * in any object that also says who by `login` or `id` (users are referred to by login or id).
 */
export function withoutPersonalData<T extends JsonValue>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value))
    return (value as readonly JsonValue[]).map((v) => withoutPersonalData(v)) as unknown as T;
  const obj = value as Record<string, JsonValue>;
  const named = typeof obj.login === "string" || typeof obj.id === "string";
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === "email" || (k === "name" && named)) continue;
    out[k] = withoutPersonalData(v);
  }
  return out as T;
}
