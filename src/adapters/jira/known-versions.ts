/**
 * The issue versions the adapter knows the engine holds (`JiraContext.known`): every issue it
 * handed the engine (listings, the feed, gets, and the read-backs that answer its creates and
 * updates), plus the comments and worklogs it added since, as their answers gave them. After a
 * migration, an issue listed as such a version was changed by nobody else, so the change feed's
 * checkpoint may be set past it (feed-prime.ts).
 *
 * Only hashes are kept, never WorkItems: a 16,000-issue project costs a few hundred kilobytes.
 */
import type { Comment, TimeEntry, WorkItem } from "../../core/model.js";
import type { ChangePage } from "../../core/tracker.js";
import { valueHash } from "./checkpoint.js";

/** One issue as the engine holds it. */
export interface KnownVersion {
  /**
   * The content hash of the issue as handed over, without its change time: Jira moves `updated`
   * for a comment or worklog added (and for a sub-task created under a story) without the adapter
   * reading the issue back, while the content it knows stays the same.
   */
  readonly hash: string;
  /** Its `updated` (epoch ms): an older read (search lags writes) never replaces a newer one. */
  readonly at: number;
  /**
   * Comments (`c:<id>`) and worklogs (`w:<id>`) added since, each followed by the hash of its
   * answer: `[id, hash, id, hash, …]`. A flat array, not a record keyed by id: a record's keys
   * differ for every issue, and V8 gave each such record a hidden class of its own (4 MB of them
   * at 16,000 items).
   */
  readonly added?: readonly string[] | undefined;
}

/** Issue key → its known version (`KnownTable`; a `Map` serves as well). */
export interface KnownVersions {
  readonly size: number;
  has(key: string): boolean;
  get(key: string): KnownVersion | undefined;
  set(key: string, version: KnownVersion): unknown;
  delete(key: string): boolean;
  keys(): IterableIterator<string>;
  clear(): void;
}

/** The hash a known version is compared by: the issue's content without its change time. */
export function versionHash(item: WorkItem): string {
  return valueHash({ ...item, updatedAt: undefined });
}

/** An issue handed to the engine. One without a change time is not a version to tell apart. */
export function rememberItem(known: KnownVersions, item: WorkItem): void {
  const at = item.updatedAt === undefined ? Number.NaN : Date.parse(item.updatedAt);
  if (!Number.isFinite(at)) {
    known.delete(item.id);
    return;
  }
  const old = known.get(item.id);
  if (old === undefined || at >= old.at) known.set(item.id, { hash: versionHash(item), at });
}

/** An issue a write changed in a way no answer shows: unknown until the engine is handed it again. */
export function forgetIssue(known: KnownVersions, key: string): void {
  known.delete(key);
}

/**
 * A comment or worklog the adapter added, as the write answered it: the issue is now the known
 * version plus this entry. An issue not known stays unknown.
 */
export function noteAdded(
  known: KnownVersions,
  key: string,
  entry: { readonly comment: Comment } | { readonly worklog: TimeEntry },
): void {
  const old = known.get(key);
  if (old === undefined) return;
  const [id, value] =
    "comment" in entry
      ? [`c:${entry.comment.id ?? ""}`, entry.comment]
      : [`w:${entry.worklog.id ?? ""}`, entry.worklog];
  if (id.length === 2) {
    known.delete(key); // an answer without an id cannot be told apart in the issue
    return;
  }
  const hash = valueHash(value);
  const added = [...(old.added ?? [])];
  const at = addedIndex(added, id);
  if (at >= 0) added[at + 1] = hash;
  else added.push(id, hash);
  known.set(key, { ...old, added });
}

/** Where `id` stands in an `added` list, or -1. */
function addedIndex(added: readonly string[], id: string): number {
  for (let i = 0; i < added.length; i += 2) if (added[i] === id) return i;
  return -1;
}

/**
 * Takes the entries the adapter added out of a listed list: `undefined` when one is missing or
 * differs from its answer (a person edited or deleted it).
 */
function withoutAdded<T extends { readonly id?: string | undefined }>(
  entries: readonly T[],
  prefix: "c" | "w",
  added: readonly string[],
  found: { count: number },
): T[] | undefined {
  const rest: T[] = [];
  for (const e of entries) {
    const at = e.id === undefined ? -1 : addedIndex(added, `${prefix}:${e.id}`);
    const hash = at < 0 ? undefined : added[at + 1];
    if (hash === undefined) rest.push(e);
    else if (hash !== valueHash(e)) return undefined;
    else found.count++;
  }
  return rest;
}

/**
 * Whether a listed issue is a version the engine holds: the known version's content, plus
 * exactly the comments and worklogs the adapter added since, as their answers gave them.
 */
export function isKnownVersion(known: Pick<KnownVersions, "get">, item: WorkItem): boolean {
  const k = known.get(item.id);
  if (k === undefined) return false;
  if (k.added === undefined) return versionHash(item) === k.hash;
  const found = { count: 0 };
  const comments = withoutAdded(item.comments, "c", k.added, found);
  const timeEntries = withoutAdded(item.timeEntries, "w", k.added, found);
  if (comments === undefined || timeEntries === undefined) return false;
  if (found.count !== k.added.length / 2) return false;
  return versionHash({ ...item, comments, timeEntries }) === k.hash;
}

/** Hands on a read's items, remembering each as a version the engine holds. */
export async function* remembering(
  known: KnownVersions,
  items: AsyncIterable<WorkItem>,
): AsyncGenerator<WorkItem> {
  for await (const item of items) {
    rememberItem(known, item);
    yield item;
  }
}

/** Hands on the feed's pages, remembering the issues they deliver. */
export async function* rememberingPages(
  known: KnownVersions,
  pages: AsyncIterable<ChangePage>,
): AsyncGenerator<ChangePage> {
  for await (const page of pages) {
    for (const change of page.changes)
      if (change.kind === "upsert") rememberItem(known, change.item);
    yield page;
  }
}

/** A write's or a get's answer, remembered when it is an issue. */
export function remembered<T extends WorkItem | Error | undefined>(
  known: KnownVersions,
  answer: T,
): T {
  if (answer !== undefined && !(answer instanceof Error)) rememberItem(known, answer);
  return answer;
}
