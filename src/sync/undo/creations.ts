import type { ItemKind, JsonValue } from "../../core/model.js";
import type { StateData } from "../../state/store.js";
import type { SyncEvent } from "../events.js";

/**
 * What one run created, kept in the state for `undo`: each item with its ids on both sides and
 * the created side's base as the run left it (what a person's later edit is told apart from).
 * Stored as a record under the key `created-by:<run id>` beside the job's checkpoints, written
 * when the run ends (finished, failed or interrupted). While the run goes, each create is also
 * noted as it is made (`creationsLog`, without its base) under `created-by:<run id>#<n>`: a run
 * killed outright (SIGKILL) leaves those, and `undo` takes its base from the item's link then.
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
  /**
   * The created side's base snapshot (stored JSON) as the run left it; absent for a create noted
   * while the run went, by a run that never ended (killed outright).
   */
  readonly base?: JsonValue | undefined;
}

const key = (runId: string): string => `created-by:${runId}`;
const chunkKey = (runId: string, n: number): string => `${key(runId)}#${n}`;
/** Creates per noted record: each note rewrites one record of at most this many. */
const CHUNK = 100;

/** Notes a run's creates as they are made; `flush` waits for the notes written so far. */
export interface CreationsLog {
  note(e: SyncEvent): void;
  flush(): Promise<void>;
}

/**
 * Notes each create of a running run in the state as it is made (kind, ids, title; no base),
 * one write per create into a record of at most CHUNK creates: what `undo` finds of a run that
 * was killed before it could record its creations in full. A failed note is left: the full
 * record at the run's end does not need it.
 */
export function creationsLog(
  state: Pick<StateData, "setCheckpoint">,
  job: string,
  runId: string,
): CreationsLog {
  const noted: Creation[] = [];
  let chain: Promise<void> = Promise.resolve();
  return {
    note(e) {
      if (e.type !== "created") return;
      noted.push({
        kind: e.kind,
        side: e.side,
        tinypmId: e.side === "target" ? e.sourceId : e.id,
        targetId: e.side === "target" ? e.id : e.sourceId,
        title: e.title,
        ...(e.url === undefined ? {} : { url: e.url }),
      });
      const n = Math.floor((noted.length - 1) / CHUNK);
      const items = noted.slice(n * CHUNK, (n + 1) * CHUNK);
      chain = chain
        .then(() =>
          state.setCheckpoint(job, chunkKey(runId, n), {
            items: JSON.stringify(items),
            count: items.length,
          }),
        )
        .catch(() => undefined);
    },
    flush: () => chain,
  };
}

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

/**
 * The items a run created: its full record, else the creates noted while it went (a run killed
 * outright), or undefined when the state holds neither.
 */
export async function readCreations(
  state: Pick<StateData, "getCheckpoint">,
  job: string,
  runId: string,
): Promise<Creation[] | undefined> {
  const cp = await state.getCheckpoint(job, key(runId));
  if (cp !== undefined && typeof cp.items === "string") return JSON.parse(cp.items) as Creation[];
  const noted: Creation[] = [];
  for (let n = 0; ; n++) {
    const chunk = await state.getCheckpoint(job, chunkKey(runId, n));
    if (chunk === undefined || typeof chunk.items !== "string") break;
    noted.push(...(JSON.parse(chunk.items) as Creation[]));
  }
  return noted.length > 0 ? noted : undefined;
}
