import type { ItemKind } from "../../core/model.js";
import type { StateStore } from "../../state/store.js";
import { linkView, type BaselessLink } from "../plan/links.js";
import type { LinkView } from "../plan/plan-types.js";

/** Bases read one link at a time up to this many a call; more are read in one pass. */
const POINT_READS = 2_000;

/** A link's key in a run's indexes: `kind:tinypmId`. */
export const linkKey = (l: { readonly kind: ItemKind; readonly tinypmId: string }): string =>
  `${l.kind}:${l.tinypmId}`;

/**
 * A run's reader of the bases of the pairs it acts on (run-read.ts `Stored.withBases`): the job's
 * links as given, those asked for (`kind:tinypmId`) with their bases. A few are read one link at
 * a time; more in one pass over the job's links, which keeps only the bases asked for — a run
 * acting on a few thousand pairs of a 50,000-item project held every link's bases before.
 */
export function basesReader(
  state: Pick<StateStore, "links" | "getLinkByTinypm">,
  job: string,
  links: readonly BaselessLink[],
  stored: ReadonlyMap<string, BaselessLink>,
): (keys: Iterable<string>) => Promise<readonly LinkView[]> {
  const loaded = new Map<string, LinkView>();
  return async (keys) => {
    const missing = new Set<string>();
    for (const k of keys) if (stored.has(k) && !loaded.has(k)) missing.add(k);
    if (missing.size > POINT_READS) {
      for await (const r of state.links(job)) {
        const k = linkKey(r);
        if (missing.has(k)) loaded.set(k, linkView(r));
      }
    } else {
      for (const k of missing) {
        const l = stored.get(k);
        const r = l && (await state.getLinkByTinypm(job, l.kind, l.tinypmId));
        if (r !== undefined) loaded.set(k, linkView(r));
      }
    }
    return loaded.size === 0 ? links : links.map((l) => loaded.get(linkKey(l)) ?? l);
  };
}
