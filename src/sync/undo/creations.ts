import { StateError } from "../../core/errors.js";
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
 * The iterations and labels the run created on the target are noted alike, each as it is made,
 * under `created-by:<run id>@containers`.
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

/** An iteration (GitHub milestone, Jira sprint) or GitHub label a run created on the target. */
export interface ContainerCreation {
  readonly kind: "iteration" | "label";
  /** Milestone number, sprint id, Project (v2) iteration title, or the label's name. */
  readonly id: string;
  readonly name: string;
}

const key = (runId: string): string => `created-by:${runId}`;
const containersKey = (runId: string): string => `${key(runId)}@containers`;
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
 * into records of at most CHUNK creates: what `undo` finds of a run that was killed before it
 * could record its creations in full. A failed note is left: the full record at the run's end
 * does not need it. Writes go one after another; the creates made while one is being written
 * go together into the next (each SQLite commit waits for the disk, and a write per create cost
 * a migration of 2,000 items 9 s of a blocked event loop), never later than that next write.
 */
export function creationsLog(
  state: Pick<StateData, "setCheckpoint">,
  job: string,
  runId: string,
): CreationsLog {
  // Only the chunk being filled is held: a full one's last write has its own copy of it.
  let chunk: Creation[] = [];
  let chunks = 0;
  const containers: ContainerCreation[] = [];
  let chain: Promise<void> = Promise.resolve();
  // Records with a write queued and not yet started: that write takes their latest content.
  const queued = new Set<string>();
  const write = (k: string, items: () => readonly unknown[]): void => {
    if (queued.has(k)) return;
    queued.add(k);
    chain = chain
      .then(() => {
        queued.delete(k);
        const now = items();
        // A note must outlive a killed process, not a power loss (the links record each create
        // durably): no fsync for it, which blocked the thread about a millisecond per create.
        return state.setCheckpoint(
          job,
          k,
          { items: JSON.stringify(now), count: now.length },
          { syncToDisk: false },
        );
      })
      .catch(() => undefined);
  };
  return {
    note(e) {
      if (e.type === "container_created") {
        // Recorded as soon as it exists (there are few): its run may be killed the next moment.
        if (containers.some((c) => c.kind === e.kind && c.id === e.id)) return;
        containers.push({ kind: e.kind, id: e.id, name: e.name });
        write(containersKey(runId), () => [...containers]);
        return;
      }
      if (e.type !== "created") return;
      if (chunk.length === CHUNK) {
        chunk = [];
        chunks++;
      }
      chunk.push({
        kind: e.kind,
        side: e.side,
        tinypmId: e.side === "target" ? e.sourceId : e.id,
        targetId: e.side === "target" ? e.id : e.sourceId,
        title: e.title,
        ...(e.url === undefined ? {} : { url: e.url }),
      });
      const mine = chunk;
      write(chunkKey(runId, chunks), () => [...mine]);
    },
    flush: () => chain,
  };
}

/** Creations per part of a run's full record: each part is built, written and let go. */
const PART = 1_000;
const partKey = (runId: string, n: number): string => `${key(runId)}/${n}`;

/**
 * Records the items the run created (from its `created` events and the links they left), in
 * parts of PART: building the whole record at once held every created item's base twice (as
 * objects and as one JSON text), the last peak of a large migration. The parts go first and the
 * record naming them last, so a run stopped in between leaves its noted creates to `undo`.
 */
export async function recordCreations(
  state: Pick<StateData, "getLinkByTinypm" | "setCheckpoint">,
  job: string,
  runId: string,
  events: readonly SyncEvent[],
): Promise<void> {
  let part: Creation[] = [];
  let parts = 0;
  let count = 0;
  const writePart = async (): Promise<void> => {
    await state.setCheckpoint(job, partKey(runId, parts), {
      items: JSON.stringify(part),
      count: part.length,
    });
    parts++;
    count += part.length;
    part = [];
  };
  for (const e of events) {
    if (e.type !== "created") continue;
    const tinypmId = e.side === "target" ? e.sourceId : e.id;
    const link = await state.getLinkByTinypm(job, e.kind, tinypmId);
    if (link === undefined) continue;
    part.push({
      kind: e.kind,
      side: e.side,
      tinypmId,
      targetId: link.targetId,
      ...(link.parentTinypmId === undefined ? {} : { parentTinypmId: link.parentTinypmId }),
      title: e.title,
      ...(e.url === undefined ? {} : { url: e.url }),
      base: e.side === "target" ? link.base.target : link.base.tinypm,
    });
    if (part.length === PART) await writePart();
  }
  if (part.length > 0) await writePart();
  if (parts > 0) await state.setCheckpoint(job, key(runId), { parts, count });
}

/**
 * The items a run created: its full record (in parts; one record of them all, as earlier versions wrote it), else
 * the creates noted while it went (a run killed outright), or undefined when the state holds
 * neither.
 */
export async function readCreations(
  state: Pick<StateData, "getCheckpoint">,
  job: string,
  runId: string,
): Promise<Creation[] | undefined> {
  const cp = await state.getCheckpoint(job, key(runId));
  if (cp !== undefined && typeof cp.items === "string") return JSON.parse(cp.items) as Creation[];
  if (cp !== undefined && typeof cp.parts === "number") {
    const all: Creation[] = [];
    for (let n = 0; n < cp.parts; n++) {
      const part = await state.getCheckpoint(job, partKey(runId, n));
      if (part === undefined || typeof part.items !== "string")
        throw new StateError(
          "state_invalid",
          `The state's record of what run ${runId} of job ${job} created lacks part ${n + 1} of ${cp.parts}: undo cannot tell everything the run created.`,
          {
            hint: "Restore the state from a backup, or take the run's items back by hand: `status` lists the job's links.",
          },
        );
      all.push(...(JSON.parse(part.items) as Creation[]));
    }
    return all;
  }
  const noted: Creation[] = [];
  for (let n = 0; ; n++) {
    const chunk = await state.getCheckpoint(job, chunkKey(runId, n));
    if (chunk === undefined || typeof chunk.items !== "string") break;
    noted.push(...(JSON.parse(chunk.items) as Creation[]));
  }
  return noted.length > 0 ? noted : undefined;
}

/**
 * How many creates a run noted as it went (`creationsLog`): what a run that never ended — killed
 * outright, or still going — has created so far, for `status`. Each note counts its creates, so
 * none of their items is read.
 */
export async function notedCreationCount(
  state: Pick<StateData, "getCheckpoint">,
  job: string,
  runId: string,
): Promise<number> {
  let count = 0;
  for (let n = 0; ; n++) {
    const chunk = await state.getCheckpoint(job, chunkKey(runId, n));
    if (chunk === undefined || typeof chunk.count !== "number") return count;
    count += chunk.count;
  }
}

/** The iterations and labels a run created on the target, as it noted them; none recorded: []. */
export async function readContainerCreations(
  state: Pick<StateData, "getCheckpoint">,
  job: string,
  runId: string,
): Promise<ContainerCreation[]> {
  const cp = await state.getCheckpoint(job, containersKey(runId));
  return cp !== undefined && typeof cp.items === "string"
    ? (JSON.parse(cp.items) as ContainerCreation[])
    : [];
}
