import type { ItemKind, JsonValue } from "../../core/model.js";
import type { StateData } from "../../state/store.js";
import type { SyncEvent } from "../events.js";

/**
 * What one run created, kept in the state for `undo`: each item with its ids on both sides and
 * the created side's base as the run left it (what a person's later edit is told apart from).
 * Stored as a record under the key `created-by:<run id>` beside the job's checkpoints, written
 * when the run ends (finished, failed or interrupted): a run killed outright records nothing,
 * and its creates settled by the next run are that run's.
 */
export interface Creation {
  readonly kind: ItemKind;
  /** The side the item was created on. */
  readonly side: "tinypm" | "target";
  readonly tinypmId: string;
  readonly targetId: string;
  /** A task's story, on the tinyPM side. */
  readonly parentTinypmId?: string | undefined;
  readonly title: string;
  readonly url?: string | undefined;
  /** The created side's base snapshot (stored JSON) as the run left it. */
  readonly base: JsonValue;
}

const key = (runId: string): string => `created-by:${runId}`;

/** Records the items the run created (from its `created` events and the links they left). */
export async function recordCreations(
  state: Pick<StateData, "getLinkByTinypm" | "setCheckpoint">,
  job: string,
  runId: string,
  events: readonly SyncEvent[],
): Promise<void> {
  const out: Creation[] = [];
  for (const e of events) {
    if (e.type !== "created") continue;
    const tinypmId = e.side === "target" ? e.sourceId : e.id;
    const link = await state.getLinkByTinypm(job, e.kind, tinypmId);
    if (link === undefined) continue;
    out.push({
      kind: e.kind,
      side: e.side,
      tinypmId,
      targetId: link.targetId,
      ...(link.parentTinypmId === undefined ? {} : { parentTinypmId: link.parentTinypmId }),
      title: e.title,
      ...(e.url === undefined ? {} : { url: e.url }),
      base: e.side === "target" ? link.base.target : link.base.tinypm,
    });
  }
  if (out.length > 0)
    await state.setCheckpoint(job, key(runId), { items: JSON.stringify(out), count: out.length });
}

/** The items a run created, or undefined when the state holds no record of them. */
export async function readCreations(
  state: Pick<StateData, "getCheckpoint">,
  job: string,
  runId: string,
): Promise<Creation[] | undefined> {
  const cp = await state.getCheckpoint(job, key(runId));
  if (cp === undefined || typeof cp.items !== "string") return undefined;
  return JSON.parse(cp.items) as Creation[];
}
