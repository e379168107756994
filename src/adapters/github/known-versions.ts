/**
 * The issue versions the adapter knows the engine holds (`GithubContext.known`): what a full
 * listing read, and what the adapter's own writes answered. After a migration, an issue whose
 * listed version is no newer than the one known here was changed by nobody else since, so the
 * change feed's checkpoint may be set past it without reading its comments back (feed-prime.ts).
 */
import type { GithubContext, KnownVersion } from "./context.js";
import type { RawIssue } from "./schema.js";

const ms = (iso: string): number => Date.parse(iso);

/** A listed issue, or one a write answered with (create, update, a sub-issue link's parent). */
export function rememberIssue(ctx: GithubContext, issue: RawIssue): void {
  const at = ms(issue.updated_at);
  if (!Number.isFinite(at)) return;
  const old = ctx.known.get(issue.number);
  if (old === undefined || at >= old.at)
    ctx.known.set(issue.number, { at, comments: issue.comments });
}

/** A comment the adapter posted: GitHub counts it and moves the issue's `updated_at` to it. */
export function rememberComment(ctx: GithubContext, number: number, postedAt: string): void {
  const old = ctx.known.get(number);
  if (old === undefined) return;
  const at = ms(postedAt);
  ctx.known.set(number, {
    at: Number.isFinite(at) ? Math.max(old.at, at) : old.at,
    comments: old.comments + 1,
  });
}

/** An issue a write touched without answering with it (a sub-issue link's child). */
export function rememberTouch(ctx: GithubContext, number: number, at: string): void {
  const old = ctx.known.get(number);
  const t = ms(at);
  if (old === undefined || !Number.isFinite(t)) return;
  ctx.known.set(number, { ...old, at: Math.max(old.at, t) });
}

/**
 * Whether a listed issue is a version the engine holds: known, no newer than the known version
 * (`updated_at` has whole seconds), with the same comment count.
 */
export function isKnown(known: ReadonlyMap<number, KnownVersion>, issue: RawIssue): boolean {
  const k = known.get(issue.number);
  return k !== undefined && ms(issue.updated_at) <= k.at && issue.comments === k.comments;
}
