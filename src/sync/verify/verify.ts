import type { SystemName, WorkItem } from "../../core/model.js";
import type { Tracker } from "../../core/tracker.js";
import type { MappingSpec } from "../../mapping/schema.js";
import type { UnmappedPolicy, UserMap } from "../../mapping/users.js";
import type { Lanes } from "../../gate/lanes.js";
import type { VerifyReport } from "../../report/verify-types.js";
import type { StateData } from "../../state/store.js";
import type { SyncEvent } from "../events.js";
import { linkView } from "../plan/links.js";
import type { LinkView } from "../plan/plan-types.js";
import { readAll } from "../read/read.js";
import { compareSides } from "./compare.js";
import { compileJobMapping } from "./job-mapping.js";

/** What `verifyJob` is given: the job's trackers, mapping, users and its state, opened read-only. */
export interface VerifyOptions {
  readonly job: { readonly name: string; readonly instance?: string; readonly project?: string };
  readonly targetSystem: SystemName;
  readonly tinypm: Tracker;
  readonly target: Tracker;
  readonly mappingSpec: MappingSpec;
  readonly userMap?: UserMap | undefined;
  readonly unmappedUsers?: UnmappedPolicy | undefined;
  /** Only read: `verify` writes nothing to the state (open it read-only). */
  readonly state: Pick<StateData, "links" | "getLinkIdentity">;
  readonly lanes: Lanes;
  readonly emit?: ((e: SyncEvent) => void) | undefined;
  readonly now?: (() => Date) | undefined;
}

/**
 * Reads both sides in full (one listing each, plus tinyPM's users and iterations and the target's
 * users, which the mapping needs), compares every linked pair and lists the unlinked items.
 * Writes nothing anywhere.
 */
export async function verifyJob(o: VerifyOptions): Promise<VerifyReport> {
  const now = o.now ?? (() => new Date());
  o.emit?.({ type: "phase", phase: "reading tinyPM" });
  const mapping = await compileJobMapping(o);
  const tinypm = await readAll(o.lanes, "tinypm", o.tinypm, o.emit);
  o.emit?.({ type: "phase", phase: `reading ${o.targetSystem}` });
  const target = await readAll(o.lanes, o.targetSystem, o.target, o.emit);
  const links: LinkView[] = [];
  for await (const l of o.state.links(o.job.name)) links.push(linkView(l));
  o.emit?.({ type: "phase", phase: "comparing" });
  const found = compareSides({
    mapping,
    job: o.job,
    tinypmItems: tinypm.items,
    targetItems: await withStoredBlocks(o, links, target.items),
    links,
  });
  const items = tinypm.items.length + target.items.length;
  const counters = o.lanes.counters();
  const requests: Record<string, number> = {};
  for (const system of ["tinypm", o.targetSystem]) {
    const c = counters[system];
    requests[system] = (c?.reads ?? 0) + (c?.writes ?? 0) + (c?.notModified ?? 0);
  }
  const total = Object.values(requests).reduce((a, b) => a + b, 0);
  const unlinked = found.unlinked.tinypm.length + found.unlinked.target.length;
  return {
    job: o.job.name,
    target: o.targetSystem,
    checkedAt: now().toISOString(),
    summary: {
      pairs: found.pairs,
      equal: found.equal,
      different: found.differences.length,
      unlinked,
    },
    differences: found.differences,
    unlinked: found.unlinked,
    cost: {
      items,
      requests,
      perItem: items === 0 ? 0 : Math.round((total / items) * 100) / 100,
    },
  };
}

/**
 * A linked target item whose hidden block a person removed is compared with the state's copy of
 * the block (what the engine stands in for it too), so that values only the block holds compare.
 */
async function withStoredBlocks(
  o: VerifyOptions,
  links: readonly LinkView[],
  items: readonly WorkItem[],
): Promise<WorkItem[]> {
  const byTarget = new Map(links.map((l) => [`${l.kind}:${l.targetId}`, l]));
  const out: WorkItem[] = [];
  for (const g of items) {
    const link = g.marker === undefined ? byTarget.get(`${g.kind}:${g.id}`) : undefined;
    const copy =
      link === undefined
        ? undefined
        : await o.state.getLinkIdentity(o.job.name, link.kind, link.tinypmId);
    out.push(copy === undefined ? g : { ...g, marker: copy.marker, metadata: copy.meta });
  }
  return out;
}
