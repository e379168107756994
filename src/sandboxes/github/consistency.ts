import type { IssueRecord, Store } from "./store.js";

/**
 * Eventual consistency of GitHub's listings (`GET …/issues`, `/search/issues`): for `lagMs` of
 * sandbox time after a write, a listing shows the issue as it was before (a new issue not at
 * all), while `GET …/issues/{n}` is already current. `lagMs` 0 is strong consistency.
 */
export interface ListingConsistency {
  readonly lagMs: number;
  /** Sandbox time of each issue's last write. */
  readonly writtenAt: Map<number, number>;
  /** The issue as listings still show it while its last write is recent. */
  readonly settled: Map<number, IssueRecord>;
}

export function createConsistency(lagMs: number): ListingConsistency {
  return { lagMs, writtenAt: new Map(), settled: new Map() };
}

function isSettled(store: Store, c: ListingConsistency, id: number): boolean {
  const at = c.writtenAt.get(id);
  return at === undefined || store.clock.now() - at >= c.lagMs;
}

/** Before a write to this issue: a settled issue is what listings keep showing for a while. */
export function beforeWrite(store: Store, issue: IssueRecord): void {
  const c = store.consistency;
  if (c.lagMs <= 0) return;
  if (isSettled(store, c, issue.id)) c.settled.set(issue.id, structuredClone(issue));
}

/** After a write to (or the creation of) this issue. */
export function afterWrite(store: Store, issue: IssueRecord): void {
  const c = store.consistency;
  if (c.lagMs > 0) c.writtenAt.set(issue.id, store.clock.now());
}

/** The issues as listings see them now. */
export function listedIssues(store: Store): IssueRecord[] {
  const c = store.consistency;
  if (c.lagMs <= 0) return store.issues;
  const out: IssueRecord[] = [];
  for (const issue of store.issues) {
    if (isSettled(store, c, issue.id)) {
      c.settled.delete(issue.id);
      out.push(issue);
      continue;
    }
    const old = c.settled.get(issue.id);
    if (old !== undefined) out.push(old);
  }
  return out;
}

/** Whether some write is still settling (answers then change with time alone: not cacheable). */
export function settling(store: Store): boolean {
  const c = store.consistency;
  if (c.lagMs <= 0) return false;
  const now = store.clock.now();
  for (const [id, at] of c.writtenAt) {
    if (now - at < c.lagMs) return true;
    c.writtenAt.delete(id);
  }
  return false;
}
