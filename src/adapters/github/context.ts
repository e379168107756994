import type { GithubClient } from "./client.js";

/**
 * An issue version the adapter knows the engine holds: read in a full listing, or answered by one
 * of its own writes. `at` is `updated_at` (ms); `comments` the count that version had; `digest`
 * a short hash of each field the adapter maps (`issueDigest`), since `updated_at` has whole
 * seconds and a person's edit in the second of the adapter's own write shares its stamp.
 */
export interface KnownVersion {
  readonly at: number;
  readonly comments: number;
  readonly digest: string;
}

/** Issue number → its known version (`KnownTable`; a `Map` serves as well). */
export interface KnownVersions {
  readonly size: number;
  has(issue: number): boolean;
  get(issue: number): KnownVersion | undefined;
  set(issue: number, version: KnownVersion): unknown;
  delete(issue: number): boolean;
}

/** What every request of the adapter goes through: the client and a number → id cache. */
export interface GithubContext {
  readonly client: GithubClient;
  /** Issue number → issue `id` (sub-issue calls take the child's id, not its number). */
  readonly ids: Map<number, number>;
  /** Issue number → node id (`I_…`), for GraphQL (adding an issue to a project). */
  readonly nodeIds: Map<number, string>;
  /**
   * Issue number → the newest version a full listing or the adapter's own writes gave it, so
   * that after a migration the change feed's checkpoint can be set past its writes without
   * reading them back (`known-versions.ts`).
   */
  readonly known: KnownVersions;
}
