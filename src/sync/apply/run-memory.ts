import type { ItemKind, WorkItemFields } from "../../core/model.js";

/**
 * What one run's apply step learns as it goes, for its later items. It lives on the run's
 * context (every copy of it shares the one memory) and goes with the run.
 */
export interface RunMemory {
  /** The stories the run created, `side:sourceId` → the new item's id (created-stories.ts). */
  readonly storiesCreated: Map<string, string>;
  /** What the target held for each value sent, `kind|field|digest sent` → digest held. */
  readonly answers: Map<string, string>;
  /** The target's create defaults per kind, read once (create-marker.ts). */
  readonly createDefaults: Map<ItemKind, Promise<Partial<WorkItemFields>>>;
}

export function newRunMemory(): RunMemory {
  return { storiesCreated: new Map(), answers: new Map(), createDefaults: new Map() };
}
