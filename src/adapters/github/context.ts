import type { GithubClient } from "./client.js";

/** What every request of the adapter goes through: the client and a number → id cache. */
export interface GithubContext {
  readonly client: GithubClient;
  /** Issue number → issue `id` (sub-issue calls take the child's id, not its number). */
  readonly ids: Map<number, number>;
  /** Issue number → node id (`I_…`), for GraphQL (adding an issue to a project). */
  readonly nodeIds: Map<number, string>;
}
