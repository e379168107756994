import { markerOwner } from "../../core/identity.js";
import type { SystemName, WorkItem } from "../../core/model.js";
import type { StateStore } from "../../state/store.js";
import type { PlanJob } from "../plan/plan-input.js";
import type { LinkView } from "../plan/plan-types.js";

/**
 * The import claims other jobs sharing the target hold on the unlinked target items this run may
 * import — unmarked ones — or that another job's marker names — a person's issue that job
 * imported, told apart from that job's own items, which it never claims (read, never written: a
 * dry run shows them too). One query, only when there are such items.
 */
export async function importClaims(o: {
  state: Pick<StateStore, "importClaims">;
  job: PlanJob;
  targetSystem: SystemName;
  /** The scope of the claims (claim-location.ts). */
  location: string;
  links: readonly LinkView[];
  targetItems: readonly WorkItem[];
}): Promise<ReadonlyMap<string, string> | undefined> {
  // Whatever the direction (a `migrate` plans to the target only): another job's import is
  // named as such, not as a foreign item.
  const linked = new Set(o.links.map((l) => `${l.kind}:${l.targetId}`));
  const ids = o.targetItems
    .filter((i) => markerOwner(i.marker, o.job) !== "ours" && !linked.has(`${i.kind}:${i.id}`))
    .map((i) => i.id);
  if (ids.length === 0) return undefined;
  return o.state.importClaims(o.targetSystem, o.location, ids);
}
