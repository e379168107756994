import type { WorkItem } from "../../core/model.js";
import type { CompiledMapping } from "../../mapping/compile.js";
import type { StateStore } from "../../state/store.js";
import { linkView } from "../plan/links.js";
import type { LinkView } from "../plan/plan-types.js";
import { rebuildLinks, type AmbiguousMatch, type RebuiltLink } from "../plan/rebuild-links.js";
import type { SystemName } from "../../core/model.js";
import type { PlanJob } from "../plan/plan-input.js";

/** What the identity step tells the report and the run's counts. */
export interface IdentityStats {
  /** Links rebuilt this run, by marker and by content. */
  readonly rebuilt: readonly RebuiltLink[];
  /** Target items of another job or another tinyPM, left alone. */
  readonly foreign: readonly {
    readonly kind: string;
    readonly id: string;
    readonly title: string;
  }[];
  readonly ambiguous: readonly AmbiguousMatch[];
  /** Linked target items whose hidden block was missing or damaged. */
  readonly blockless: number;
}

export interface IdentityStep {
  readonly links: readonly LinkView[];
  readonly targetItems: readonly WorkItem[];
  readonly blockless: ReadonlyMap<string, "restored" | "unknown">;
  readonly held: ReadonlySet<string>;
  readonly stats: IdentityStats;
}

/**
 * Before the plan: rebuilds the links the state lacks (stored unless a dry run), parks ambiguous
 * content matches, and stands the state's copy of a block in for a linked item's missing one.
 */
export async function identityStep(o: {
  job: PlanJob;
  mapping: CompiledMapping;
  targetSystem: SystemName;
  state: StateStore;
  dry: boolean;
  runId: string;
  tinypmItems: readonly WorkItem[];
  targetItems: readonly WorkItem[];
  /** The job's links: as read, and those that settling interrupted creates stored since. */
  links: readonly LinkView[];
  now: Date;
  /**
   * Items already held (`side:kind:id`: an interrupted import whose tinyPM copy cannot be told
   * apart): matched with nothing by content either, and held in the result.
   */
  held?: ReadonlySet<string> | undefined;
}): Promise<IdentityStep> {
  const before = o.held ?? new Set<string>();
  const stored = o.links;
  const found = rebuildLinks({
    job: o.job,
    mapping: o.mapping,
    targetSystem: o.targetSystem,
    tinypmItems: o.tinypmItems.filter((i) => !before.has(`tinypm:${i.kind}:${i.id}`)),
    targetItems: o.targetItems.filter((i) => !before.has(`target:${i.kind}:${i.id}`)),
    links: stored,
    now: o.now,
  });
  if (!o.dry) {
    await o.state.transaction(async (tx) => {
      for (const r of found.links) {
        await tx.putLink(r.record);
        if (r.marker !== undefined)
          await tx.putLinkIdentity(o.job.name, r.record.kind, r.record.tinypmId, {
            marker: r.marker,
            meta: r.meta,
          });
      }
    });
    for (const a of found.ambiguous) {
      for (const targetId of a.targetIds)
        await o.state.parkFailure({
          runId: o.runId,
          job: o.job.name,
          kind: a.kind,
          targetId,
          side: "target",
          code: "identity_ambiguous",
          message:
            `${a.kind} "${a.title}" lost its marker and its link, and matches ` +
            `${a.tinypmIds.length} tinyPM item(s) (${a.tinypmIds.join(", ")}) and ` +
            `${a.targetIds.length} ${o.targetSystem} item(s) (${a.targetIds.join(", ")}) by content: ` +
            "left alone, never guessed. Put the block back or retitle one of them, then run again.",
        });
    }
  }
  const links = [...stored, ...found.links.map((r) => linkView(r.record))];
  const byTarget = new Map(links.map((l) => [`${l.kind}:${l.targetId}`, l]));
  const blockless = new Map<string, "restored" | "unknown">();
  const targetItems: WorkItem[] = [];
  for (const g of o.targetItems) {
    const k = `${g.kind}:${g.id}`;
    const link = g.marker === undefined ? byTarget.get(k) : undefined;
    if (link === undefined) {
      targetItems.push(g);
      continue;
    }
    const copy = await o.state.getLinkIdentity(o.job.name, link.kind, link.tinypmId);
    blockless.set(k, copy === undefined ? "unknown" : "restored");
    targetItems.push(copy === undefined ? g : { ...g, marker: copy.marker, metadata: copy.meta });
  }
  const held = new Set<string>(before);
  for (const a of found.ambiguous) {
    for (const id of a.targetIds) held.add(`target:${a.kind}:${id}`);
    for (const id of a.tinypmIds) held.add(`tinypm:${a.kind}:${id}`);
  }
  return {
    links,
    targetItems,
    blockless,
    held,
    stats: {
      rebuilt: found.links,
      foreign: found.foreign.map((g) => ({ kind: g.kind, id: g.id, title: g.title })),
      ambiguous: found.ambiguous,
      blockless: blockless.size,
    },
  };
}
