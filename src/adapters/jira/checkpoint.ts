import { hash } from "node:crypto";
import { PayloadInvalidError } from "../../core/errors.js";
import type { WorkItem } from "../../core/model.js";
import type { Checkpoint } from "../../core/tracker.js";

/**
 * The Jira change feed's checkpoint: the newest `updated` seen (epoch ms) and the content hashes
 * of the issues inside the overlap window at that moment. The next run asks for
 * `updated >= updatedMs − overlap` (JQL is minute-granular and search is eventually consistent)
 * and drops issues whose hash it already delivered.
 */
export interface FeedState {
  readonly updatedMs: number;
  /** key → content hash and `updated` (ms), for issues within the overlap window of `updatedMs`. */
  readonly seen: ReadonlyMap<string, SeenItem>;
}

interface SeenItem {
  readonly hash: string;
  readonly at: number;
}

export const DEFAULT_OVERLAP_MS = 60_000;

export function decodeCheckpoint(cp: Checkpoint | undefined): FeedState | undefined {
  if (cp === undefined) return undefined;
  const updatedMs = cp.updatedMs;
  const seen = cp.seen ?? "";
  if (typeof updatedMs !== "number" || !Number.isFinite(updatedMs) || typeof seen !== "string") {
    throw new PayloadInvalidError(
      `Jira checkpoint is not one this adapter wrote (${JSON.stringify(cp).slice(0, 200)}).`,
      { system: "jira", operation: "changes" },
      { hint: "Reset the job's Jira cursor; the next sync rescans the project." },
    );
  }
  const entries = seen === "" ? [] : seen.split(",").map(decodeSeen);
  return { updatedMs, seen: new Map(entries) };
}

function decodeSeen(entry: string): [string, SeenItem] {
  const [key = "", rest = ""] = entry.split("=");
  const [hash = "", at = "0"] = rest.split("@");
  return [key, { hash, at: Number(at) }];
}

export function encodeCheckpoint(state: FeedState): Checkpoint {
  return {
    updatedMs: state.updatedMs,
    seen: [...state.seen].map(([k, s]) => `${k}=${s.hash}@${s.at}`).join(","),
  };
}

/** A short, stable hash of an item's content (keys sorted). */
export function contentHash(item: WorkItem): string {
  return valueHash(item);
}

/** `contentHash` of any JSON-like value (a comment, a worklog, an item without its time). */
export function valueHash(value: unknown): string {
  return hash("sha256", stableJson(value), "hex").slice(0, 16);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Where the next query starts: the watermark minus the overlap window. */
export function querySince(state: FeedState | undefined, overlapMs: number): number | undefined {
  return state === undefined ? undefined : state.updatedMs - overlapMs;
}

/**
 * Folds one page of items (sorted by `updated`) into the feed state: returns the items not yet
 * delivered and the new state, whose `seen` keeps only issues inside the overlap window.
 */
export function advanceFeed(opts: {
  readonly state: FeedState | undefined;
  readonly items: readonly WorkItem[];
  readonly overlapMs: number;
}): { fresh: WorkItem[]; state: FeedState } {
  const seen = new Map(opts.state?.seen ?? []);
  let updatedMs = opts.state?.updatedMs ?? 0;
  const fresh: WorkItem[] = [];
  for (const item of opts.items) {
    const hash = contentHash(item);
    const parsed = item.updatedAt === undefined ? Number.NaN : Date.parse(item.updatedAt);
    const at = Number.isFinite(parsed) ? parsed : updatedMs;
    updatedMs = Math.max(updatedMs, at);
    const known = seen.get(item.id)?.hash === hash;
    seen.set(item.id, { hash, at });
    if (!known) fresh.push(item);
  }
  for (const [key, s] of seen) if (s.at < updatedMs - opts.overlapMs) seen.delete(key);
  return { fresh, state: { updatedMs, seen } };
}
