import type {
  ItemKind,
  Iteration,
  SystemName,
  UserRef,
  WorkItem,
  WorkItemFieldName,
} from "../../core/model.js";
import type { Checkpoint, UnreadableItem } from "../../core/tracker.js";
import { systemLabel } from "../../core/system-label.js";
import type { Lanes } from "../../gate/lanes.js";
import {
  compileMapping,
  mappedFields,
  type CompiledMapping,
  type MappedFields,
} from "../../mapping/compile.js";
import type { UserMatch } from "../../mapping/user-match.js";
import type { UserTable } from "../../mapping/users.js";
import type { ConflictRecord } from "../../state/records.js";
import type { StateStore } from "../../state/store.js";
import { BaselessLink } from "../plan/links.js";
import type { Side } from "../plan/merge.js";
import type { PlanJob } from "../plan/plan-input.js";
import type { LinkView } from "../plan/plan-types.js";
import { goneLinks, quietPlan, type DeletionInput } from "../plan/plan.js";
import { sameJson, snapshotHash, tinypmSnapshot } from "../plan/snapshot.js";
import { statusOverBase } from "../plan/status-over-base.js";
import { DEFAULT_FULL_SCAN_EVERY, TIERS_STATE_KEY, decodeTierState } from "../plan/tiers.js";
import type { EngineOptions } from "../run-options.js";
import { basesReader, linkKey } from "./bases-reader.js";
import { fetchOne, readAll, readChanges, type SideRead } from "./read.js";
import {
  readCounterparts,
  readRest,
  readTinypmFull,
  readTinypmTiers,
  type TinypmRead,
  type TinypmReadInfo,
} from "./read-tinypm.js";
import { readStatusTouched } from "./status-touched.js";
import { readTargeted } from "./targeted-read.js";
import { readAndMatchUsers, type ReadUsersResult } from "./user-read.js";
import { recheckTargetRead, rechecks } from "./verify-target.js";

/** A read outside the item scans, through the lane so that it is paced and retried. */
export function laneRead<T>(
  lanes: Lanes,
  system: SystemName,
  name: string,
  run: () => Promise<T>,
): Promise<T> {
  return lanes.run(system, { name, kind: "read", run });
}

/**
 * The target's users matched with tinyPM's (the user map, then the policy for the unmatched),
 * read through the target's lane: what a run and `verify` compile the mapping with.
 */
export async function matchJobUsers(
  o: Pick<EngineOptions, "target" | "targetSystem" | "userMap" | "unmappedUsers" | "lanes">,
  tinypmUsers: readonly UserRef[],
): Promise<ReadUsersResult["result"]> {
  const { result } = await readAndMatchUsers({
    tinypmUsers,
    target: o.target,
    userMap: o.userMap,
    policy: o.unmappedUsers,
    read: (name, run) =>
      laneRead(o.lanes, o.targetSystem, `${o.targetSystem}: ${name}`, () => run({})),
  });
  return result;
}

/** Decisions taken with `conflicts resolve`, still to apply, by `kind:tinypmId`. */
export type Resolutions = ReadonlyMap<string, Partial<Record<WorkItemFieldName, Side>>>;

/**
 * Everything a run reads before it settles, plans and applies — one plain value: both sides, the
 * job's stored links (read once), the target's users (unless the run is quiet), the mapping
 * compiled with them, and the target's status history where the plan needs it.
 */
export interface RunRead {
  readonly tinypmIterations: readonly Iteration[];
  /** Compiled with the target's users; without them (`quiet`) when there is nothing to map. */
  readonly mapping: CompiledMapping;
  /** The target's users matched with tinyPM's (none read for a quiet run). */
  readonly users: {
    readonly matches: readonly UserMatch[];
    readonly unmapped: readonly UserRef[];
    /** How the mapping names each tinyPM user on the target (absent for a quiet run). */
    readonly table?: UserTable | undefined;
  };
  readonly tinypm: SideRead;
  readonly target: SideRead;
  /** What was read of tinyPM (tiers), for the report. */
  readonly tinypmRead: TinypmReadInfo;
  /** The tinyPM tier record to store once the run is applied. */
  readonly tinypmTiers?: Checkpoint | undefined;
  /** The job's links as stored before the run writes any. */
  readonly links: readonly LinkView[];
  readonly resolved: Resolutions;
  /** Linked pairs (`kind:tinypmId`) with a conflict open in the state (plan-input.ts). */
  readonly openConflicts: ReadonlySet<string>;
  /**
   * Nothing in the target's read, no decision to apply, no create to settle, and a plan of skips
   * only (plan.ts `quietPlan`): the run needs neither the target's users nor a settling step.
   */
  readonly quiet: boolean;
  /**
   * Linked pairs (`kind:tinypmId`) whose target status was set back to its base since the last
   * sync (status-touched.ts): their status base is unknown to the plan.
   */
  readonly statusTouched: ReadonlySet<string>;
}

/** What the state holds for the run, read once before anything else. */
interface Stored {
  /**
   * The job's links without their bases (links.ts `BaselessLink`): all a quiet sync needs of
   * them, at a third of the memory.
   */
  readonly links: readonly BaselessLink[];
  /** The same links by `kind:tinypmId`: the one index of them a run builds. */
  readonly byKey: ReadonlyMap<string, BaselessLink>;
  /**
   * The links again, with the bases of those named (`kind:tinypmId`) read from the state — and
   * of those named by earlier calls: a run reads the bases of the pairs it may act on, no more.
   */
  readonly withBases: (keys: Iterable<string>) => Promise<readonly LinkView[]>;
  /** Interrupted creates waiting to be settled. */
  readonly pending: number;
  /** Conflicts resolved with `conflicts resolve`. */
  readonly resolved: readonly ConflictRecord[];
  /** `kind:tinypmId` of the pairs with a conflict open. */
  readonly openConflicts: ReadonlySet<string>;
}

/**
 * The read step of a run (no write anywhere). tinyPM's users and iterations, the stored links,
 * then both sides; the target's users only when there is something to map: field names and
 * tinyPM snapshots do not depend on users, so a quiet sync (nothing in the target's feed, nothing
 * changed on tinyPM) costs the target nothing but its feed's 304. Then the listings are checked
 * again item by item where they lag, and the status history read where the plan needs it. The
 * mapping is compiled once: with the target's users when the first read that decodes a target
 * item needs it, or once the run is known not to be quiet; without them for a quiet run.
 */
export async function readRun(
  o: EngineOptions,
  job: PlanJob,
  dry: boolean,
  now: Date,
): Promise<RunRead> {
  o.emit?.({ type: "phase", phase: "reading tinyPM" });
  const [tinypmUsers, tinypmIterations] = await Promise.all([
    laneRead(o.lanes, "tinypm", "list tinypm users", () => o.tinypm.listUsers()),
    laneRead(o.lanes, "tinypm", "list tinypm iterations", () => o.tinypm.listIterations()),
  ]);
  const stored = await readStored(o.state, job.name);
  const withUsers = compileOnce(o, tinypmUsers, tinypmIterations);
  const fields = mappedFields(o.mappingSpec);
  const moved = movedFromDigest(fields, stored.byKey);
  const sides = await readSides(o, job, { fields, withUsers, moved }, stored);
  const resolved = resolutions(stored.resolved);
  const read = {
    tinypmIterations,
    resolved,
    openConflicts: stored.openConflicts,
    tinypmTiers: sides.tinypmRead.save,
  };
  const input = (s: Sides, links: readonly LinkView[]): DeletionInput => ({
    job,
    targetSystem: o.targetSystem,
    tinypm: s.tinypm,
    target: s.target,
    links,
    resolved,
    openConflicts: stored.openConflicts,
    now,
  });
  const quiet =
    resolved.size === 0 && (dry || stored.pending === 0) && quietPlan(input(sides, stored.links));
  // A quiet run plans skips only, from the links' ids and recorded deletions: it keeps them
  // without their bases. Any other run reads them with their bases.
  if (quiet)
    return {
      ...read,
      links: stored.links,
      mapping: compileMapping(o.mappingSpec, { iterations: tinypmIterations }),
      users: { matches: [], unmapped: [] },
      tinypm: sides.tinypm,
      target: sides.target,
      tinypmRead: sides.tinypmRead.info,
      quiet,
      statusTouched: new Set(),
    };
  const acted = await stored.withBases(
    pairsActedOn(moved, sides, input(sides, stored.links), stored.links),
  );
  const { mapping, users } = await withUsers();
  const checked = await recheckListings(o, job, sides, mapping, acted, stored);
  // Items read again one by one may be items the listing had left out: their bases too.
  const links =
    checked === sides
      ? acted
      : await stored.withBases(
          pairsActedOn(moved, checked, input(checked, stored.links), stored.links),
        );
  const statusTouched = await readStatusTouched(
    o,
    statusOverBase({ ...input(checked, links), mapping }),
  );
  return {
    ...read,
    links,
    mapping,
    users,
    tinypm: checked.tinypm,
    target: checked.target,
    tinypmRead: checked.tinypmRead.info,
    quiet,
    statusTouched,
  };
}

/** The run's mapping, compiled with the target's users: read and compiled on the first call. */
type WithUsers = () => Promise<{
  readonly mapping: CompiledMapping;
  readonly users: ReadUsersResult["result"];
}>;

function compileOnce(
  o: EngineOptions,
  tinypmUsers: readonly UserRef[],
  iterations: readonly Iteration[],
): WithUsers {
  let once: ReturnType<WithUsers> | undefined;
  return () =>
    (once ??= matchJobUsers(o, tinypmUsers).then((users) => ({
      users,
      mapping: compileMapping(o.mappingSpec, { users: users.table, iterations }),
    })));
}

/** What the side reads need of the mapping: its fields, and the compiled one once it decodes. */
interface ReadMapping {
  readonly fields: MappedFields;
  readonly withUsers: WithUsers;
  readonly moved: MovedFromDigest;
}

/**
 * Whether a linked tinyPM item's snapshot differs from its base's digest (false for an item no
 * link knows). Each item is hashed once a run, however many steps ask.
 */
type MovedFromDigest = (item: WorkItem) => boolean;

function movedFromDigest(
  fields: MappedFields,
  links: ReadonlyMap<string, BaselessLink>,
): MovedFromDigest {
  const answers = new WeakMap<WorkItem, boolean>();
  return (item) => {
    const known = answers.get(item);
    if (known !== undefined) return known;
    const digest = links.get(linkKey({ kind: item.kind, tinypmId: item.id }))?.tinypmHash;
    const moved = digest !== undefined && snapshotHash(tinypmSnapshot(fields, item)) !== digest;
    answers.set(item, moved);
    return moved;
  };
}

/**
 * Which tinyPM items a sync keeps as read: all but the linked ones read exactly as their link's
 * base holds them (the digest), which the plan skips from their keys alone (read.ts `inStep`) —
 * so that a sync holds what changed, not every item of the open iterations. Kept all the same:
 * an item with writes pending, a deletion recorded, a conflict open or resolved, or a failure
 * parked (`wanted`), which the plan settles from the item itself.
 */
function keepOf(
  stored: Stored,
  moved: MovedFromDigest,
  wanted: readonly { kind: ItemKind; id: string }[],
): (item: WorkItem) => boolean {
  const links = stored.byKey;
  const settles = new Set([
    ...wanted.map((w) => linkKey({ kind: w.kind, tinypmId: w.id })),
    ...stored.openConflicts,
  ]);
  return (item) => {
    const k = linkKey({ kind: item.kind, tinypmId: item.id });
    const link = links.get(k);
    return (
      link === undefined ||
      settles.has(k) ||
      (link.pendingWrites?.length ?? 0) > 0 ||
      link.deletedOn("tinypm") ||
      link.deletedOn("target") ||
      moved(item)
    );
  };
}

/**
 * The tinyPM items a read let go (read.ts `inStep`) whose counterparts the target read found
 * gone: read again by id, as the deletion's survivor. (An unreadable copy is parked from its
 * link alone: plan.ts.)
 */
function inStepCounterparts(
  tinypm: SideRead,
  links: readonly BaselessLink[],
  targets: readonly { kind: ItemKind; id: string }[],
): { kind: ItemKind; id: string }[] {
  const inStep = tinypm.inStep;
  if (inStep === undefined || targets.length === 0) return [];
  const ids = new Set(targets.map((t) => t.id));
  return links.flatMap((l) =>
    ids.has(l.targetId) && inStep.has(linkKey(l)) ? [{ kind: l.kind, id: l.tinypmId }] : [],
  );
}

/** The target items a read found deleted (`kind:id`), as references. */
function goneRefs(read: SideRead): { kind: ItemKind; id: string }[] {
  return [...(read.gone ?? [])].map((k) => {
    const at = k.indexOf(":");
    return { kind: k.slice(0, at) as ItemKind, id: k.slice(at + 1) };
  });
}

async function readStored(state: StateStore, job: string): Promise<Stored> {
  const links: BaselessLink[] = [];
  for await (const l of state.links(job)) links.push(new BaselessLink(l));
  const byKey = new Map(links.map((l) => [linkKey(l), l]));
  const withBases = basesReader(state, job, links, byKey);
  const pending = (await state.pendingIntents(job)).length;
  const conflicts = await state.conflicts({ job });
  const resolved = conflicts.filter((c) => c.status === "resolved");
  const openConflicts = new Set(
    conflicts.flatMap((c) => (c.status === "open" ? [`${c.kind}:${c.tinypmId}`] : [])),
  );
  return { links, byKey, withBases, pending, resolved, openConflicts };
}

/** The keys of the links of these target items (by target id, whatever the kind read). */
function linksOfTargetItems(
  links: readonly LinkView[],
  items: readonly { readonly id: string }[],
): string[] {
  if (items.length === 0) return [];
  const ids = new Set(items.map((i) => i.id));
  return links.flatMap((l) => (ids.has(l.targetId) ? [linkKey(l)] : []));
}

/**
 * The links whose bases a run that is not quiet needs (`kind:tinypmId`): those of every target
 * item read (or unreadable, or found gone), of every linked item found gone from a side, and of
 * every tinyPM item read that moved from its base's digest. The rest — a tinyPM item read as it
 * was, its copy not read, or neither read — are skipped by the plan from their ids alone.
 */
function pairsActedOn(
  moved: MovedFromDigest,
  sides: Sides,
  input: DeletionInput,
  links: readonly BaselessLink[],
): string[] {
  const byTarget = new Map<string, BaselessLink[]>();
  for (const l of links) byTarget.set(l.targetId, [...(byTarget.get(l.targetId) ?? []), l]);
  const target = sides.target;
  const ids = [
    ...target.items.map((i) => i.id),
    ...(target.unreadable ?? []).map((u) => u.id),
    ...[...(target.gone ?? [])].map((k) => k.slice(k.indexOf(":") + 1)),
  ];
  const out = ids.flatMap((id) => (byTarget.get(id) ?? []).map(linkKey));
  out.push(...goneLinks(input).map(linkKey));
  for (const item of sides.tinypm.items)
    if (moved(item)) out.push(linkKey({ kind: item.kind, tinypmId: item.id }));
  return out;
}

/**
 * Migrations read tinyPM in full; syncs read it by tiers (read-tinypm.ts) and the target by its
 * feed. The target's counterparts of tinyPM items that changed are fetched too, and so are the
 * tinyPM counterparts of target items that changed but lie in a section this run left out.
 */
async function readSides(
  o: EngineOptions,
  job: PlanJob,
  mapping: ReadMapping,
  stored: Stored,
): Promise<Sides> {
  // `--repair-markers` looks at every target item (removing a block need not show in a feed)
  // and matches them against every tinyPM item.
  if (o.mode !== "sync" || job.repairMarkers === true) {
    // A migration reads tinyPM section by section, all of them, so that it leaves the tier
    // record a first sync would otherwise read the whole project again to make.
    const tinypmRead =
      o.mode === "migrate" && o.tinypm.startTieredScan !== undefined
        ? await readTinypmTiers({
            lanes: o.lanes,
            tracker: o.tinypm,
            stored: undefined,
            fullScanEvery: o.fullScanEvery ?? DEFAULT_FULL_SCAN_EVERY,
            force: "migration",
            emit: o.emit,
            lighten: true,
          })
        : await readTinypmFull(
            o.lanes,
            o.tinypm,
            o.mode === "sync" ? "repair" : "migration",
            o.emit,
            o.mode === "migrate",
          );
    o.emit?.({ type: "phase", phase: `reading ${systemLabel(o.targetSystem)}` });
    const target = await readAll(o.lanes, o.targetSystem, o.target, o.emit);
    return { tinypm: tinypmRead.side, target, tinypmRead };
  }
  // `sync --full` reads the target in full too, from no checkpoint: a feed never shows an item
  // deleted there, only a complete read does (its checkpoint is then stored afresh).
  const from =
    o.fullScan === true ? undefined : await o.state.getCheckpoint(job.name, o.targetSystem);
  const { links, pending } = stored;
  // Telling a target item unchanged since its base needs the bases of the items read.
  const linksFor = (targetItems: readonly WorkItem[]): Promise<readonly LinkView[]> =>
    stored.withBases(linksOfTargetItems(links, targetItems));
  // A webhook's run reads only the items it named, once a first sync has linked the projects
  // and no create waits to be settled (both need the whole project).
  if (o.targetItems !== undefined && from !== undefined && o.fullScan !== true && pending === 0) {
    const targeted = await readTargeted(o, links, o.targetItems);
    if (targeted !== undefined) return targeted;
  }
  const tierState = await o.state.getCheckpoint(job.name, TIERS_STATE_KEY);
  const failures = await o.state.failures(job.name);
  // Resolved conflicts are settled whether or not their item changed.
  const resolvedIds = stored.resolved.flatMap((c) =>
    c.appliedAt === undefined ? [{ kind: c.kind, id: c.tinypmId }] : [],
  );
  const first = await readTinypmTiers({
    lanes: o.lanes,
    tracker: o.tinypm,
    stored: decodeTierState(tierState),
    fullScanEvery: o.fullScanEvery ?? DEFAULT_FULL_SCAN_EVERY,
    // Without a target checkpoint the target is read in full: so is tinyPM. Interrupted creates
    // are settled against everything read, so they too need every tinyPM item.
    force:
      o.fullScan === true
        ? "forced"
        : from === undefined
          ? "first"
          : pending > 0
            ? "pending"
            : undefined,
    emit: o.emit,
    keep:
      from === undefined || pending > 0
        ? undefined
        : keepOf(stored, mapping.moved, [
            ...failures.flatMap((f) =>
              f.tinypmId === undefined ? [] : [{ kind: f.kind, id: f.tinypmId }],
            ),
            ...resolvedIds,
          ]),
  });
  // Parked failures and resolved conflicts are settled whether or not their section was read.
  const withParked = await readCounterparts({
    lanes: o.lanes,
    read: first,
    targetItems: [],
    links,
    mapping: undefined,
    job: job.name,
    also: [
      ...failures.flatMap((f) =>
        f.tinypmId === undefined ? [] : [{ kind: f.kind, id: f.tinypmId }],
      ),
      ...resolvedIds,
    ],
  });
  // Target items the run needs although the feed may not return them: parked failures, and the
  // counterparts of tinyPM items that changed since the last sync.
  const extra = failures.flatMap((f) =>
    f.targetId === undefined ? [] : [{ kind: f.kind, id: f.targetId }],
  );
  if (from !== undefined)
    extra.push(...(await changedCounterparts(mapping, stored, withParked.side.items)));
  o.emit?.({ type: "phase", phase: `reading ${systemLabel(o.targetSystem)}` });
  const target = await readChanges({
    lanes: o.lanes,
    system: o.targetSystem,
    tracker: o.target,
    from,
    extra,
    emit: o.emit,
  });
  // Target items no link knows are matched against every tinyPM item (the identity step):
  // read the rest of tinyPM, and the target counterparts of what changed there.
  const known = new Set(links.map((l) => `${l.kind}:${l.targetId}`));
  const unlinked = target.items.some((i) => !known.has(`${i.kind}:${i.id}`));
  const rest = unlinked
    ? await readRest(o.lanes, withParked, "unlinked", o.emit)
    : { read: withParked, added: [] };
  const more = from === undefined ? [] : await changedCounterparts(mapping, stored, rest.added);
  const unreadable = [...(target.unreadable ?? [])];
  const fetched = await fetchMissing(o, target, more, unreadable);
  // A target item read is what makes a run not quiet: its decoding needs the target's users.
  const tinypmRead = await readCounterparts({
    lanes: o.lanes,
    read: rest.read,
    targetItems: target.items,
    links: await linksFor(target.items),
    mapping: target.items.length > 0 ? (await mapping.withUsers()).mapping : undefined,
    job: job.name,
    also: inStepCounterparts(rest.read.side, links, goneRefs(target)),
  });
  const fresh = new Set([...(target.fresh ?? []), ...fetched.map((i) => `${i.kind}:${i.id}`)]);
  return {
    tinypm: tinypmRead.side,
    target: {
      ...target,
      items: [...target.items, ...fetched],
      fresh,
      ...(unreadable.length > 0 && { unreadable }),
    },
    tinypmRead,
  };
}

interface Sides {
  readonly tinypm: SideRead;
  readonly target: SideRead;
  readonly tinypmRead: TinypmRead;
}

/**
 * Listings lag writes (verify-target.ts): the linked target items the plan would act on are read
 * again one by one, and the tinyPM counterparts of those that turn out changed are read if the
 * tiers left them out.
 */
async function recheckListings(
  o: EngineOptions,
  job: PlanJob,
  sides: Sides,
  mapping: CompiledMapping,
  links: readonly LinkView[],
  stored: Stored,
): Promise<Sides> {
  const wanted = rechecks({ read: sides.target, links, tinypmItems: sides.tinypm.items, mapping });
  if (wanted.length === 0) return sides;
  const target = await recheckTargetRead({
    lanes: o.lanes,
    system: o.targetSystem,
    tracker: o.target,
    read: sides.target,
    rechecks: wanted,
  });
  const tinypmRead = await readCounterparts({
    lanes: o.lanes,
    read: sides.tinypmRead,
    targetItems: target.items,
    links: await stored.withBases(linksOfTargetItems(links, target.items)),
    mapping,
    job: job.name,
    also: inStepCounterparts(sides.tinypm, stored.links, goneRefs(target)),
  });
  return { tinypm: tinypmRead.side, target, tinypmRead };
}

/**
 * Target ids of the linked tinyPM items whose content moved away from the last synced base. An
 * item whose snapshot has its base's digest is unchanged; the others (changed, or a base stored
 * under another mapping) are compared with the bases themselves, read for them.
 */
async function changedCounterparts(
  mapping: ReadMapping,
  stored: Stored,
  items: readonly WorkItem[],
): Promise<{ kind: ItemKind; id: string }[]> {
  const unsure = items.filter(mapping.moved);
  if (unsure.length === 0) return [];
  const links = await stored.withBases(
    unsure.map((i) => linkKey({ kind: i.kind, tinypmId: i.id })),
  );
  return changedFrom(mapping.fields, links, unsure);
}

/** Target ids of the linked `items` whose content differs from their link's tinyPM base. */
function changedFrom(
  mapping: MappedFields,
  links: readonly LinkView[],
  items: readonly WorkItem[],
): { kind: ItemKind; id: string }[] {
  const byTinypm = new Map(links.map((l) => [`${l.kind}:${l.tinypmId}`, l]));
  const out: { kind: ItemKind; id: string }[] = [];
  for (const item of items) {
    const link = byTinypm.get(`${item.kind}:${item.id}`);
    if (link === undefined) continue;
    const names = mapping.fieldNames(item.kind);
    const t = tinypmSnapshot(mapping, item);
    const changed =
      names.some((n) => !sameJson(t.fields[n], link.baseTinypm.fields[n])) ||
      !sameJson([...t.comments], [...link.baseTinypm.comments]) ||
      !sameJson(t.timeEntries, link.baseTinypm.timeEntries);
    if (changed) out.push({ kind: item.kind, id: link.targetId });
  }
  return out;
}

/** Target items the feed did not return, read one by one. */
async function fetchMissing(
  o: EngineOptions,
  target: SideRead,
  refs: readonly { kind: ItemKind; id: string }[],
  /** Where an item whose payload fails validation goes (parked by the plan). */
  unreadable: UnreadableItem[],
): Promise<WorkItem[]> {
  const have = new Set(target.items.map((i) => `${i.kind}:${i.id}`));
  const out: WorkItem[] = [];
  for (const ref of refs) {
    if (have.has(`${ref.kind}:${ref.id}`)) continue;
    const item = await fetchOne(o.lanes, o.targetSystem, o.target, ref, (u) => {
      if (u.error.code === "payload_invalid") unreadable.push(u);
    });
    if (item) out.push(item);
  }
  return out;
}

/** Decisions taken with `conflicts resolve`, still to apply, by `kind:tinypmId`. */
function resolutions(conflicts: readonly ConflictRecord[]): Resolutions {
  const out = new Map<string, Partial<Record<WorkItemFieldName, Side>>>();
  for (const c of conflicts) {
    if (c.appliedAt !== undefined || c.resolution === undefined) continue;
    const key = `${c.kind}:${c.tinypmId}`;
    out.set(key, { ...out.get(key), [c.field]: c.resolution });
  }
  return out;
}
