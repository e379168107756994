import type { ItemKind, WorkItemFields } from "../../core/model.js";
import { RecentMap } from "../../core/recent-map.js";

/**
 * What one run's apply step learns as it goes, for its later items. It lives on the run's
 * context (every copy of it shares the one memory) and goes with the run.
 */
export interface RunMemory {
  /** The stories the run created, `side:sourceId` → the new item's id (created-stories.ts). */
  readonly storiesCreated: Map<string, string>;
  /**
   * What the target held for each value sent, `kind|field|digest sent` → digest held: the
   * recent ones. A value sent again (a status, a priority) stays; most values are sent once (a
   * title, a description) and held 6.2 MB at 50,000 items when every one was kept. A value
   * forgotten costs at most one more write of a create's block.
   */
  readonly answers: RecentMap<string, string>;
  /** The target's create defaults per kind, read once (create-marker.ts). */
  readonly createDefaults: Map<ItemKind, Promise<Partial<WorkItemFields>>>;
}

/** How many answers a run keeps (run-memory.ts: `answers`). */
const ANSWERS_KEPT = 4096;

export function newRunMemory(): RunMemory {
  return {
    storiesCreated: new Map(),
    answers: new RecentMap(ANSWERS_KEPT),
    createDefaults: new Map(),
  };
}
