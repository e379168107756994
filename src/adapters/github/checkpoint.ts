import { z } from "zod";
import type { Checkpoint } from "../../core/tracker.js";
import { StateError } from "../../core/errors.js";
import { hexHash } from "../../core/short-hash.js";

/**
 * The GitHub change-feed checkpoint: `since` (the `since` parameter the stored ETag belongs to),
 * `etag` (of that request's first page; empty when not yet known), `seen` (number@updated_at of
 * the items inside the overlap window, so they are not emitted twice), and `probe` when the ETag
 * is the newest-first probe's (feed-probe.ts), not the listing's first page's.
 */
interface FeedCheckpoint {
  readonly since?: string | undefined;
  readonly etag?: string | undefined;
  readonly seen?: string | undefined;
  readonly probe?: "newest" | undefined;
}

/** Items updated this close to the watermark are fetched again (clock skew, same-second writes). */
const OVERLAP_MS = 5_000;

/**
 * When GitHub's clock (a `Date` header) has gone far enough past the watermark `maxUpdatedAt`
 * for a listing then to show every issue stamped up to it (`sinceFor`'s settled window).
 */
export function settledAt(maxUpdatedAt: string): number {
  return Date.parse(maxUpdatedAt) + OVERLAP_MS + 1_000;
}

const checkpointSchema = z.object({
  v: z.literal(1).optional(),
  since: z.iso.datetime().optional(),
  etag: z.string().optional(),
  seen: z.string().optional(),
  probe: z.literal("newest").optional(),
});

export function encodeCheckpoint(cp: FeedCheckpoint): Checkpoint {
  const out: Record<string, string | number> = { v: 1 };
  if (cp.since !== undefined) out.since = cp.since;
  if (cp.etag !== undefined && cp.etag !== "") out.etag = cp.etag;
  if (cp.seen !== undefined && cp.seen !== "") out.seen = cp.seen;
  if (cp.probe !== undefined && out.etag !== undefined) out.probe = cp.probe;
  return out;
}

/** Validates a stored checkpoint; throws `StateError` naming the problem. */
export function decodeCheckpoint(cp: Checkpoint | undefined): FeedCheckpoint {
  if (cp === undefined) return {};
  const parsed = checkpointSchema.safeParse(cp);
  if (!parsed.success) {
    throw new StateError("state_invalid", `GitHub checkpoint is invalid: ${JSON.stringify(cp)}`, {
      hint: "Reset the job's checkpoint to rescan the repository.",
      details: { issues: parsed.error.issues.map((i) => `${i.path.join(" > ")}: ${i.message}`) },
    });
  }
  const { since, etag, seen, probe } = parsed.data;
  return { since, etag, seen, probe };
}

/**
 * The de-duplication key of one issue version: number and `updated_at`, plus a short content
 * hash, because `updated_at` has whole seconds and two edits in one second share it.
 */
export function versionKey(issue: { number: number; updated_at: string }): string {
  const digest = hexHash("sha256", JSON.stringify(issue), 8);
  return `${issue.number}@${issue.updated_at}#${digest}`;
}

/**
 * The next `since`, in GitHub's `YYYY-MM-DDTHH:MM:SSZ` form: the watermark minus the overlap
 * window, so that an issue stamped a little before the newest one but listed only later is read.
 * A listing read (`readAt`, GitHub's clock: the first page's `Date` header, whole seconds) well
 * after the watermark already showed every such issue: the window then shrinks to the
 * watermark's own second. Without that, a burst of writes (a migration's last seconds) kept more
 * than a page of issues in the window, so that no ETag could stand for it and every quiet sync
 * listed them all again.
 */
export function sinceFor(maxUpdatedAt: string, readAt?: number): string {
  const max = Date.parse(maxUpdatedAt);
  const settled = readAt !== undefined && readAt >= settledAt(maxUpdatedAt);
  const t = settled ? Math.floor(max / 1_000) * 1_000 : max - OVERLAP_MS;
  return new Date(t).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A response's `Date` header as epoch ms (undefined when absent or not a date). */
export function dateOf(header: unknown): number | undefined {
  if (typeof header !== "string") return undefined;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : at;
}

/** The keys of the versions at or after `since` (the ones the next overlap fetch returns). */
export function seenInWindow(keys: Iterable<string>, since: string): string {
  const limit = Date.parse(since);
  const kept: string[] = [];
  for (const k of keys) {
    const at = k.slice(k.indexOf("@") + 1, k.includes("#") ? k.indexOf("#") : undefined);
    if (Date.parse(at) >= limit) kept.push(k);
  }
  return kept.sort().join(",");
}

/** The later of two ISO timestamps (undefined-safe). */
export function laterOf(a: string | undefined, b: string): string {
  return a === undefined || Date.parse(b) > Date.parse(a) ? b : a;
}
