/**
 * The issue versions the adapter knows the engine holds (`GithubContext.known`): what a full
 * listing read, and what the adapter's own writes answered. After a migration, an issue listed
 * with the known version's stamp or an older one, its comment count and its content was changed
 * by nobody else since, so the change feed's checkpoint may be set past it without reading its
 * comments back (feed-prime.ts).
 */
import { hash } from "node:crypto";
import type { GithubContext, KnownVersions } from "./context.js";
import { numberFromUrl } from "./map.js";
import type { RawIssue } from "./schema.js";

/** What the adapter maps from an issue (map.ts `toWorkItem`), as the parts a write sets. */
const PARTS = ["title", "body", "state", "labels", "assignees", "milestone", "parent"] as const;
type IssuePart = (typeof PARTS)[number];
/** 36 bits a part: a person's edit of one part goes unseen once in 70 billion. */
const PART_CHARS = 6;

/** The `PATCH …/issues/{n}` parameters that set each part. */
const PART_OF_PARAM: Readonly<Record<string, IssuePart>> = {
  title: "title",
  body: "body",
  state: "state",
  state_reason: "state",
  labels: "labels",
  assignees: "assignees",
  assignee: "assignees",
  milestone: "milestone",
};

/** What the functions here read and write of the adapter's context. */
type Known = Pick<GithubContext, "known">;

const ms = (iso: string): number => Date.parse(iso);

/** Orders and spellings GitHub may vary for one version are normalised; the rest is left in. */
function partValue(issue: RawIssue, part: IssuePart): unknown {
  switch (part) {
    case "title":
      return issue.title;
    case "body":
      // GitHub does not tell an empty body from none; a browser's edit sends `\r\n`.
      return (issue.body ?? "").replace(/\r\n?/g, "\n");
    case "state":
      return [issue.state, issue.state_reason ?? null];
    case "labels":
      return issue.labels.map((l) => (typeof l === "string" ? l : l.name)).sort();
    case "assignees":
      return (issue.assignees ?? []).map((u) => u.login).sort();
    case "milestone":
      return issue.milestone == null ? null : [issue.milestone.number, issue.milestone.title];
    case "parent":
      return parentValue(numberFromUrl(issue.parent_issue_url));
  }
}

/** The parent part's value for a parent issue number (none: `null`). */
const parentValue = (parent: string | undefined): string | null => parent ?? null;

const partHash = (value: unknown): string =>
  hash("sha1", JSON.stringify(value), "base64url").slice(0, PART_CHARS);

/**
 * A short hash of what the adapter maps from an issue (title, body with the hidden block, state
 * and reason, labels, assignees, milestone, parent), one hash a part so that a write's answer
 * can be checked part by part. Not `updated_at` or the comment count: the adapter's own comments
 * change those and nothing here (its sub-issue links set the child's parent part, `rememberTouch`).
 * A false mismatch only costs the first sync a full read; a false match would lose a person's
 * edit.
 */
export function issueDigest(issue: RawIssue): string {
  // One-shot hashes: a 50,000-issue listing costs a few hundred milliseconds, not seconds.
  return PARTS.map((part) => partHash(partValue(issue, part))).join("");
}

const partOf = (digest: string, i: number): string =>
  digest.slice(i * PART_CHARS, (i + 1) * PART_CHARS);

/** A listed issue, or one the adapter created (the engine holds all of it). */
export function rememberIssue(ctx: Known, issue: RawIssue): void {
  const at = ms(issue.updated_at);
  if (!Number.isFinite(at)) return;
  const old = ctx.known.get(issue.number);
  if (old === undefined || at >= old.at)
    ctx.known.set(issue.number, { at, comments: issue.comments, digest: issueDigest(issue) });
}

/**
 * An issue a write answered with after changing only some of it: `params`, the PATCH's (none
 * for a sub-issue link's parent). The engine holds the parts it wrote as answered, and the
 * others as the known version had them: an answer that shows any other part or the comment count
 * changed carries a person's edit the engine never read, and the issue is no longer known.
 */
export function rememberAnswer(
  ctx: Known,
  issue: RawIssue,
  params: Readonly<Record<string, unknown>> = {},
): void {
  const old = ctx.known.get(issue.number);
  if (old === undefined) return;
  const at = ms(issue.updated_at);
  const written = new Set(Object.keys(params).map((key) => PART_OF_PARAM[key]));
  const digest = issueDigest(issue);
  const kept = PARTS.every(
    (part, i) => written.has(part) || partOf(digest, i) === partOf(old.digest, i),
  );
  if (!kept || issue.comments !== old.comments || !Number.isFinite(at)) {
    ctx.known.delete(issue.number);
    return;
  }
  ctx.known.set(issue.number, { at: Math.max(old.at, at), comments: old.comments, digest });
}

/**
 * A comment the adapter posted: GitHub counts it and moves the issue's `updated_at` — to the
 * comment's stamp or, read a moment later, to the next second: no later than the answer left
 * (`answeredAt`, the `Date` header), as for a sub-issue's child (`rememberTouch`). A 50,000-item
 * migration under load left no checkpoint for a task stamped a second after the comment it got.
 */
export function rememberComment(
  ctx: Known,
  number: number,
  postedAt: string,
  answeredAt?: number,
): void {
  const old = ctx.known.get(number);
  if (old === undefined) return;
  const at = Math.max(ms(postedAt), answeredAt ?? Number.NEGATIVE_INFINITY);
  ctx.known.set(number, {
    ...old,
    at: Number.isFinite(at) ? Math.max(old.at, at) : old.at,
    comments: old.comments + 1,
  });
}

/**
 * An issue a write touched without answering with it (a sub-issue link's child): stamped no
 * earlier than the answered issue (`at`) and no later than the answer left (`answeredAt`, the
 * `Date` header, whole seconds). GitHub stamps the two issues apart: under load the child's
 * stamp fell a second after the parent's, and taking the parent's for it left 50,000-item
 * migrations without a checkpoint. The child's content and comments are still checked.
 */
export function rememberTouch(
  ctx: Known,
  number: number,
  at: string,
  answeredAt?: number,
  /** The child's parent as the write set it (a sub-issue link). */
  parent?: string,
): void {
  const old = ctx.known.get(number);
  const t = Math.max(ms(at), answeredAt ?? Number.NEGATIVE_INFINITY);
  if (old === undefined || !Number.isFinite(t)) return;
  const digest =
    parent === undefined ? old.digest : withPart(old.digest, "parent", parentValue(parent));
  ctx.known.set(number, { ...old, at: Math.max(old.at, t), digest });
}

function withPart(digest: string, part: IssuePart, value: unknown): string {
  const i = PARTS.indexOf(part);
  return digest.slice(0, i * PART_CHARS) + partHash(value) + digest.slice((i + 1) * PART_CHARS);
}

/**
 * Whether a listed issue is a version the engine holds: known, no newer than the known version,
 * with the same comment count and the same content. `updated_at` has whole seconds: a person's
 * edit in the second of the adapter's last write to the issue shares its stamp, and only the
 * content tells it apart.
 */
export function isKnown(known: Pick<KnownVersions, "get">, issue: RawIssue): boolean {
  return notKnown(known, issue) === undefined;
}

/**
 * Why a listed issue is not a version the engine holds, in words naming it (`undefined` when it
 * is): one the run neither listed nor wrote, one stamped after what the adapter knew, or one
 * whose comments or content differ.
 */
export function notKnown(known: Pick<KnownVersions, "get">, issue: RawIssue): string | undefined {
  const k = known.get(issue.number);
  const which = `issue #${issue.number}`;
  if (k === undefined) return `${which} was neither listed nor written by the migration`;
  if (ms(issue.updated_at) > k.at)
    return `${which} was updated at ${issue.updated_at}, after the migration's last look at it (${new Date(k.at).toISOString()})`;
  if (issue.comments !== k.comments)
    return `${which} has ${issue.comments} comments where the migration left ${k.comments}`;
  if (issueDigest(issue) !== k.digest)
    return `${which} differs from what the migration wrote or read (title, body, state, labels, assignees or milestone)`;
  return undefined;
}
