import { PayloadInvalidError } from "../../core/errors.js";
import type { WorkItem } from "../../core/model.js";
import type { Checkpoint } from "../../core/tracker.js";
import { hexHash } from "../../core/short-hash.js";

/**
 * The Jira change feed's checkpoint: the newest `updated` seen (epoch ms), when the last complete
 * search began on the site's clock, and the content hashes of the issues inside the overlap
 * window. The next run asks for `updated >= max(updatedMs, readMs) − overlap` (JQL is
 * minute-granular and search is eventually consistent) and drops issues whose hash it already
 * delivered.
 *
 * Search lags writes by less than the overlap, so a complete search that began at `readMs` saw
 * every issue updated before `readMs − overlap`. Without it the window hung on the newest
 * issue: after a burst of writes (a migration at Jira Data Center's pace) and no change since,
 * every quiet sync read the burst's last minute or two again — 101 searches at 16,000 items.
 */
export interface FeedState {
  readonly updatedMs: number;
  /** When the last complete search began, on the site's clock (epoch ms; absent before). */
  readonly readMs?: number | undefined;
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
  const readMs = cp.readMs;
  const seen = cp.seen ?? "";
  if (
    typeof updatedMs !== "number" ||
    !Number.isFinite(updatedMs) ||
    typeof seen !== "string" ||
    (readMs !== undefined && (typeof readMs !== "number" || !Number.isFinite(readMs)))
  ) {
    throw new PayloadInvalidError(
      `Jira checkpoint is not one this adapter wrote (${JSON.stringify(cp).slice(0, 200)}).`,
      { system: "jira", operation: "changes" },
      { hint: "Reset the job's Jira cursor; the next sync rescans the project." },
    );
  }
  const entries = seen === "" ? [] : seen.split(",").map(decodeSeen);
  return { updatedMs, ...(readMs !== undefined && { readMs }), seen: new Map(entries) };
}

function decodeSeen(entry: string): [string, SeenItem] {
  const [key = "", rest = ""] = entry.split("=");
  const [hash = "", at = "0"] = rest.split("@");
  return [key, { hash, at: Number(at) }];
}

export function encodeCheckpoint(state: FeedState): Checkpoint {
  return {
    updatedMs: state.updatedMs,
    ...(state.readMs !== undefined && { readMs: state.readMs }),
    seen: [...state.seen].map(([k, s]) => `${k}=${s.hash}@${s.at}`).join(","),
  };
}

/** A short, stable hash of an item's content (keys sorted). */
export function contentHash(item: WorkItem): string {
  return valueHash(item);
}

/** `contentHash` of any JSON-like value (a comment, a worklog, an item without its time). */
export function valueHash(value: unknown): string {
  return hexHash("sha256", stableJson(value), 16);
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

/**
 * Where the next query starts: the overlap window before the later of the newest issue seen and
 * the last complete search's start. Each is a bound under which every issue was delivered (the
 * first by the order of the search, the second by the search's lag), so the later one is too.
 */
export function querySince(state: FeedState | undefined, overlapMs: number): number | undefined {
  return state === undefined
    ? undefined
    : Math.max(state.updatedMs, state.readMs ?? Number.NEGATIVE_INFINITY) - overlapMs;
}

/** The state once a search that began at `readMs` (the site's clock) was read to its end. */
export function searchedAt(state: FeedState, readMs: number | undefined): FeedState {
  return readMs === undefined || readMs <= (state.readMs ?? Number.NEGATIVE_INFINITY)
    ? state
    : { ...state, readMs };
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
  const readMs = opts.state?.readMs;
  return { fresh, state: { updatedMs, ...(readMs !== undefined && { readMs }), seen } };
}
