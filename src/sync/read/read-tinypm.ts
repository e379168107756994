import type { ItemKind, WorkItem } from "../../core/model.js";
import type {
  Checkpoint,
  ListingForm,
  TieredScan,
  Tracker,
  UnreadableItem,
} from "../../core/tracker.js";
import type { CompiledMapping } from "../../mapping/compile.js";
import type { Lanes } from "../../gate/lanes.js";
import type { LinkView } from "../plan/plan-types.js";
import type { SyncEvent } from "../events.js";
import { readCount } from "./read-count.js";
import { lightener } from "./light-items.js";
import { readAll, type SideRead } from "./read.js";
import { sameJson, targetSnapshot } from "../plan/snapshot.js";
import {
  decideTiers,
  encodeTierState,
  nextTierState,
  type FullReason,
  type SectionReason,
  type TierState,
} from "../plan/tiers.js";

/** What a run read of tinyPM, for the report (every format) and the run's record. */
export interface TinypmReadInfo {
  /** Every item was read: deletions on tinyPM may be inferred. */
  readonly complete: boolean;
  /** Why everything was read, when it was. */
  readonly fullReason?: FullReason | undefined;
  /** The sections of the project and why each was read (or `skipped`). */
  readonly sections: readonly {
    readonly key: string;
    readonly name: string;
    readonly closed: boolean;
    readonly stories: number;
    readonly reason: SectionReason;
  }[];
  /** Items read one by one because the target changed their counterpart. */
  readonly fetched: number;
  /** Whether story and task listings carried complete elements. */
  readonly listings?: Readonly<Record<"story" | "task", ListingForm>> | undefined;
  /**
   * Linked items this run did not read (closed iterations a tiered read left out): in step as far
   * as the state knows. Set by the engine once the plan is made.
   */
  readonly notRead?: number | undefined;
}

export interface TinypmRead {
  readonly side: SideRead;
  readonly info: TinypmReadInfo;
  /** The tier record to store once the run is applied (not for dry runs). */
  readonly save?: Checkpoint | undefined;
  readonly scan?: TieredScan | undefined;
}

/** A full read through `list` (migrations, and trackers without tiers). */
export async function readTinypmFull(
  lanes: Lanes,
  tracker: Tracker,
  fullReason: FullReason,
  emit?: (e: SyncEvent) => void,
  /** Keep each item's heavy parts packed (light-items.ts): a migration's read. */
  lighten?: boolean,
): Promise<TinypmRead> {
  const side = await readAll(lanes, "tinypm", tracker, emit, lighten);
  return { side, info: { complete: true, fullReason, sections: [], fetched: 0 } };
}

/**
 * The tiered read of tinyPM: the listings first (one lane call), then the sections the policy
 * picks (another). A read that leaves any section out is partial: it never infers a deletion.
 */
export async function readTinypmTiers(o: {
  lanes: Lanes;
  tracker: Tracker;
  stored: TierState | undefined;
  fullScanEvery: number;
  force?: FullReason | undefined;
  /** Told how many stories of how many the read has found so far (progress). */
  emit?: ((e: SyncEvent) => void) | undefined;
  /**
   * Whether the run needs an item as read (run-read.ts `keepOf`); one it does not is only
   * counted, by key, in `inStep`, so that a sync holds what changed and not the whole project.
   * @default every item is kept
   */
  keep?: ((item: WorkItem) => boolean) | undefined;
  /** Keep each item's heavy parts packed (light-items.ts): a migration's read. */
  lighten?: boolean | undefined;
}): Promise<TinypmRead> {
  const start = o.tracker.startTieredScan?.bind(o.tracker);
  if (start === undefined) return readTinypmFull(o.lanes, o.tracker, "no-tiers", o.emit);
  const scan = await o.lanes.run("tinypm", {
    name: "list tinypm sections",
    kind: "read",
    run: (signal) => start({ signal }),
  });
  const decision = decideTiers({
    sections: scan.sections,
    stored: o.stored,
    fullScanEvery: o.fullScanEvery,
    force: o.force,
  });
  const unreadable: UnreadableItem[] = [];
  const inStep = new Set<string>();
  const chosen = new Set(decision.read);
  const count = readCount(
    o.emit,
    "tinypm",
    scan.sections.reduce((n, s) => n + (chosen.has(s.key) ? s.stories : 0), 0),
  );
  const items = await o.lanes.run("tinypm", {
    name: `read tinypm ${decision.complete ? "project" : "open and changed sections"}`,
    kind: "read",
    run: async (signal) => {
      unreadable.length = 0;
      inStep.clear();
      count.restart();
      const out: WorkItem[] = [];
      const light = o.lighten === true ? lightener() : (item: WorkItem): WorkItem => item;
      const onUnreadable = (u: UnreadableItem): void => void unreadable.push(u);
      for await (const item of scan.read(decision.read, { signal, onUnreadable })) {
        if (o.keep === undefined || o.keep(item)) out.push(light(item));
        else inStep.add(key(item.kind, item.id));
        count.item(item);
      }
      count.end();
      return out;
    },
  });
  return {
    side: {
      items,
      complete: decision.complete,
      ...withUnreadable([], unreadable),
      ...(inStep.size > 0 && { inStep }),
    },
    info: {
      complete: decision.complete,
      fullReason: decision.fullReason,
      sections: scan.sections.map((s) => ({
        key: s.key,
        name: s.name,
        closed: s.closed,
        stories: s.stories,
        reason: decision.reasons[s.key] ?? "skipped",
      })),
      fetched: 0,
      listings: scan.listings(),
    },
    save: encodeTierState(
      rereadAfterUnreadable(nextTierState(scan.sections, o.stored, decision), unreadable),
    ),
    scan,
  };
}

const key = (kind: ItemKind, id: string): string => `${kind}:${id}`;

/**
 * Turns a partial read into a complete one by reading the sections it left out (when the
 * target holds items no link knows: matching them needs every tinyPM item). Returns the read and
 * the items it added.
 */
export async function readRest(
  lanes: Lanes,
  read: TinypmRead,
  fullReason: FullReason,
  emit?: (e: SyncEvent) => void,
): Promise<{ read: TinypmRead; added: readonly WorkItem[] }> {
  const scan = read.scan;
  if (read.side.complete || scan === undefined) return { read, added: [] };
  const skipped = read.info.sections.filter((s) => s.reason === "skipped");
  const rest = skipped.map((s) => s.key);
  const have = new Set([
    ...read.side.items.map((i) => key(i.kind, i.id)),
    ...(read.side.inStep ?? []),
  ]);
  const unreadable: UnreadableItem[] = [];
  const count = readCount(
    emit,
    "tinypm",
    skipped.reduce((n, s) => n + s.stories, 0),
  );
  const more = await lanes.run("tinypm", {
    name: "read the rest of tinypm",
    kind: "read",
    run: async (signal) => {
      unreadable.length = 0;
      count.restart();
      const out: WorkItem[] = [];
      const onUnreadable = (u: UnreadableItem): void => void unreadable.push(u);
      for await (const item of scan.read(rest, { signal, onUnreadable })) {
        out.push(item);
        count.item(item);
      }
      count.end();
      return out;
    },
  });
  const added = more.filter((i) => !have.has(key(i.kind, i.id)));
  const signatures = Object.fromEntries(
    scan.sections.filter((s) => s.closed).map((s) => [s.key, s.signature]),
  );
  return {
    added,
    read: {
      ...read,
      side: {
        items: [...read.side.items, ...added],
        complete: true,
        ...withUnreadable(read.side.unreadable, unreadable),
        ...(read.side.inStep !== undefined && { inStep: read.side.inStep }),
      },
      info: {
        ...read.info,
        complete: true,
        fullReason,
        sections: read.info.sections.map((s) =>
          s.reason === "skipped" ? { ...s, reason: "full" } : s,
        ),
      },
      save: encodeTierState(
        rereadAfterUnreadable({ runsSinceFull: 0, signatures }, [
          ...(read.side.unreadable ?? []),
          ...unreadable,
        ]),
      ),
    },
  };
}

/**
 * After a partial read: the tinyPM items whose target counterpart the feed reports changed (its
 * content differs from the last synced base, or it is our unlinked copy) but that the read left
 * out, read one by one, so that a change on the target is merged at once.
 */
export async function readCounterparts(o: {
  lanes: Lanes;
  read: TinypmRead;
  targetItems: readonly WorkItem[];
  links: readonly LinkView[];
  /**
   * Decodes the target items to tell those unchanged since their link's base (no counterpart
   * needed); undefined only without target items.
   */
  mapping: CompiledMapping | undefined;
  job: string;
  /** tinyPM items wanted in any case (parked failures). */
  also?: readonly { kind: ItemKind; id: string }[];
}): Promise<TinypmRead> {
  const scan = o.read.scan;
  const inStep = o.read.side.inStep ?? new Set<string>();
  if (scan === undefined || (o.read.side.complete && inStep.size === 0)) return o.read;
  // A complete read has every item but those it did not keep: only they are read again.
  const partial = !o.read.side.complete;
  // An item found unreadable this run is not read again: it is parked once.
  const have = new Set(
    [...o.read.side.items, ...(o.read.side.unreadable ?? [])].map((i) => key(i.kind, i.id)),
  );
  const byTarget = new Map(o.links.map((l) => [key(l.kind, l.targetId), l]));
  const refs: { kind: ItemKind; id: string; parentId?: string | undefined }[] = [];
  const wanted = new Set<string>();
  for (const item of o.targetItems) {
    const link = byTarget.get(key(item.kind, item.id));
    const m = item.marker;
    const ref =
      link !== undefined
        ? { kind: link.kind, id: link.tinypmId, parentId: link.parentTinypmId }
        : m?.job === o.job && m.origin === "tinypm"
          ? { kind: m.originKind, id: m.originId, parentId: undefined }
          : undefined;
    if (ref === undefined || have.has(key(ref.kind, ref.id)) || wanted.has(key(ref.kind, ref.id)))
      continue;
    // An item read and let go: the pair is planned with both sides as read, as if it were kept.
    const dropped = inStep.has(key(ref.kind, ref.id));
    if (!dropped && !partial) continue;
    if (
      !dropped &&
      link !== undefined &&
      o.mapping !== undefined &&
      unchanged(o.mapping, item, link)
    )
      continue;
    const parentId =
      ref.parentId ??
      (ref.kind === "task" && item.parentId !== undefined
        ? byTarget.get(key("story", item.parentId))?.tinypmId
        : undefined);
    wanted.add(key(ref.kind, ref.id));
    refs.push({ kind: ref.kind, id: ref.id, parentId });
  }
  const parentOf = new Map(o.links.map((l) => [key(l.kind, l.tinypmId), l.parentTinypmId]));
  for (const ref of o.also ?? []) {
    const k = key(ref.kind, ref.id);
    if (have.has(k) || wanted.has(k) || (!partial && !inStep.has(k))) continue;
    wanted.add(k);
    refs.push({ ...ref, parentId: parentOf.get(k) });
  }
  if (refs.length === 0) return o.read;
  const unreadable: UnreadableItem[] = [];
  const fetched = await o.lanes.run("tinypm", {
    name: `get ${refs.length} tinypm items changed on the target`,
    kind: "read",
    run: (signal) => {
      unreadable.length = 0;
      return scan.readItems(refs, { signal, onUnreadable: (u) => unreadable.push(u) });
    },
  });
  const again = new Set([...fetched, ...unreadable].map((i) => key(i.kind, i.id)));
  const still = [...inStep].filter((k) => !again.has(k));
  return {
    ...o.read,
    side: {
      ...o.read.side,
      items: [...o.read.side.items, ...fetched],
      ...withUnreadable(o.read.side.unreadable, unreadable),
      inStep: still.length > 0 ? new Set(still) : undefined,
    },
    info: { ...o.read.info, fetched: o.read.info.fetched + fetched.length },
  };
}

/**
 * After a read that met unreadable items, closed sections are not remembered as read: the next
 * run reads them again, so that a story that reads again comes back with its tasks (a story is
 * read by id as a parked failure, but a closed section's tasks only with their section).
 */
function rereadAfterUnreadable(state: TierState, unreadable: readonly UnreadableItem[]): TierState {
  return unreadable.length === 0 ? state : { ...state, signatures: {} };
}

/** The unreadable items of two reads, for a `SideRead` (nothing when there are none). */
function withUnreadable(
  before: readonly UnreadableItem[] | undefined,
  more: readonly UnreadableItem[],
): { unreadable?: readonly UnreadableItem[] } {
  const all = [...(before ?? []), ...more];
  return all.length === 0 ? {} : { unreadable: all };
}

/** The target item holds what was last synced (an echo of our own write, or no change). */
function unchanged(mapping: CompiledMapping, item: WorkItem, link: LinkView): boolean {
  const g = targetSnapshot(mapping, item);
  return (
    sameJson(g.fields, link.baseTarget.fields) &&
    sameJson([...g.comments], [...link.baseTarget.comments]) &&
    sameJson(g.timeEntries, link.baseTarget.timeEntries)
  );
}
