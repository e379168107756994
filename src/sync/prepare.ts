import type {
  ItemKind,
  Iteration,
  SystemName,
  UserRef,
  WorkItem,
  WorkItemFieldName,
} from "../core/model.js";
import type { Checkpoint } from "../core/tracker.js";
import { compileMapping, type CompiledMapping } from "../mapping/compile.js";
import type { UserMatch } from "../mapping/user-match.js";
import {
  assigneeLoss,
  assigneeLossError,
  describeAssigneeLoss,
  NO_ASSIGNEE_LOSS,
  type AssigneeLoss,
} from "./plan/assignee-loss.js";
import type { Lanes } from "../gate/lanes.js";
import type { StateStore } from "../state/store.js";
import type { EngineContext } from "./context.js";
import type { RunJobOptions } from "./run-options.js";
import { identityStep, type IdentityStats, type IdentityStep } from "./identity-step.js";
import { linkView } from "./plan/links.js";
import type { LinkView } from "./plan/plan-types.js";
import type { Side } from "./plan/merge.js";
import { planJob } from "./plan/plan.js";
import type { Plan } from "./plan/plan-types.js";
import { fetchOne, readAll, readChanges, type SideRead } from "./read.js";
import {
  readCounterparts,
  readRest,
  readTinypmFull,
  readTinypmTiers,
  type TinypmRead,
  type TinypmReadInfo,
} from "./read-tinypm.js";
import { DEFAULT_FULL_SCAN_EVERY, TIERS_STATE_KEY, decodeTierState } from "./plan/tiers.js";
import { statusTouchedSinceBase, withStatusUnknown } from "./status-touched.js";
import { reconcileIntents } from "./apply/reconcile.js";
import { tinypmFloors } from "./apply/tinypm-anchor.js";
import { readTargeted } from "./targeted-read.js";
import { readAndMatchUsers, type ReadUsersResult } from "./user-read.js";
import { recheckTargetRead, rechecks } from "./verify-target.js";
import { sameJson, tinypmSnapshot } from "./plan/snapshot.js";
import type { PlanJob } from "./plan/plan-input.js";
import { claimLocation } from "./claim-location.js";
import { markerOwner } from "../core/identity.js";
import { systemLabel } from "../core/system-label.js";
import { assertDeletesAllowed } from "./mass-delete.js";

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
  o: Pick<RunJobOptions, "target" | "targetSystem" | "userMap" | "unmappedUsers" | "lanes">,
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

export interface Prepared {
  readonly mapping: CompiledMapping;
  readonly users: { matches: readonly UserMatch[]; unmapped: readonly UserRef[] };
  /** Items sent to the target with an unmatched assignee (counted before any write). */
  readonly assigneeLoss: AssigneeLoss;
  readonly tinypmIterations: readonly Iteration[];
  /** The highest tinyPM id of each kind read (the floor of a tinyPM create's anchor). */
  readonly tinypmFloors: ReadonlyMap<ItemKind, number>;
  readonly target: SideRead;
  /** What was read of tinyPM (tiers), for the report. */
  readonly tinypmRead: TinypmReadInfo;
  /** The tinyPM tier record to store once the run is applied. */
  readonly tinypmTiers?: Checkpoint | undefined;
  /** Settles interrupted creates (unless a dry run), rebuilds lost links, then plans. */
  readonly plan: (ctx: EngineContext) => Promise<Plan>;
  /** What the identity step found (after `plan`; undefined for a quiet run). */
  readonly identity: () => IdentityStats | undefined;
  /** The links the plan saw: stored, and after `plan` those the identity step rebuilt. */
  readonly links: () => readonly LinkView[];
}

/**
 * Reads both sides, then the target's users only when there is something to map: field names
 * and tinyPM snapshots do not depend on users, so a quiet sync (nothing in the target's feed,
 * nothing changed on tinyPM) costs the target nothing but its feed's 304.
 */
export async function prepare(
  o: RunJobOptions,
  job: PlanJob,
  dry: boolean,
  now: () => Date,
): Promise<Prepared> {
  o.emit?.({ type: "phase", phase: "reading tinyPM" });
  const [tinypmUsers, tinypmIterations] = await Promise.all([
    laneRead(o.lanes, "tinypm", "list tinypm users", () => o.tinypm.listUsers()),
    laneRead(o.lanes, "tinypm", "list tinypm iterations", () => o.tinypm.listIterations()),
  ]);
  const bare = compileMapping(o.mappingSpec, { iterations: tinypmIterations });
  const sides = await readSides(o, job, bare);
  const { tinypm, target } = sides;
  const read = { tinypmRead: sides.tinypmRead.info, tinypmTiers: sides.tinypmRead.save };
  const resolved = await resolutions(o.state, job.name);
  // The links as stored before this run writes any (plans and the assignee count use them).
  const storedLinks = await linkViews(o.state, job.name);
  const planWith = (
    mapping: CompiledMapping,
    id?: IdentityStep,
    read = sides,
    claimed?: ReadonlyMap<string, string>,
  ): Plan =>
    planJob({
      job,
      mapping,
      targetSystem: o.targetSystem,
      tinypm: read.tinypm,
      target: id === undefined ? read.target : { ...read.target, items: id.targetItems },
      links: id?.links ?? storedLinks,
      resolved,
      blockless: id?.blockless,
      held: id?.held,
      claimed,
      now: now(),
    });
  const quiet =
    target.items.length === 0 &&
    resolved.size === 0 &&
    (dry || (await o.state.pendingIntents(job.name)).length === 0);
  const quietPlan = quiet ? planWith(bare) : undefined;
  if (quietPlan?.actions.every((a) => a.type === "skip") === true) {
    const users = { matches: [], unmapped: [] };
    return {
      mapping: bare,
      users,
      assigneeLoss: NO_ASSIGNEE_LOSS,
      tinypmIterations,
      tinypmFloors: tinypmFloors(sides.tinypm.items),
      target,
      ...read,
      plan: () => Promise.resolve(quietPlan),
      identity: () => undefined,
      links: () => storedLinks,
    };
  }
  const users = await matchJobUsers(o, tinypmUsers);
  const loss =
    job.direction === "to-tinypm"
      ? NO_ASSIGNEE_LOSS
      : assigneeLoss({
          items: tinypm.items,
          links: storedLinks,
          table: users.table,
        });
  if (loss.items > 0) {
    const message = describeAssigneeLoss(loss, o.targetSystem);
    o.emit?.({ type: "assignees_unmapped", items: loss.items, policy: loss.policy, message });
    // The `fail` policy stops here: before settling interrupted creates or any other write.
    if (loss.policy === "fail") throw assigneeLossError(loss, o.targetSystem);
  }
  const mapping = compileMapping(o.mappingSpec, {
    users: users.table,
    iterations: tinypmIterations,
  });
  const checked = await recheckListings(o, job, sides, mapping);
  let found: IdentityStep | undefined;
  return {
    mapping,
    users,
    assigneeLoss: loss,
    tinypmIterations,
    tinypmFloors: tinypmFloors(checked.tinypm.items),
    target: checked.target,
    ...read,
    tinypmRead: checked.tinypmRead.info,
    async plan(ctx) {
      ctx.emit({ type: "phase", phase: "planning" });
      // The deletion guard, before the first write (settling interrupted creates writes): the
      // plan a dry run would make from the stored links must not delete too much. Deletions are
      // inferred only from a complete read or items read by id and gone: else nothing to count.
      const mayDelete =
        checked.tinypm.complete || checked.target.complete || (checked.target.gone?.size ?? 0) > 0;
      if (!dry && mayDelete)
        assertDeletesAllowed(
          job,
          o.targetSystem,
          planWith(mapping, undefined, checked),
          storedLinks,
        );
      const settled = dry
        ? undefined
        : await reconcileIntents(ctx, checked.tinypm.items, checked.target.items);
      found = await identityStep({
        job,
        mapping,
        targetSystem: o.targetSystem,
        state: o.state,
        dry,
        runId: ctx.runId,
        tinypmItems: checked.tinypm.items,
        targetItems: checked.target.items,
        now: now(),
        // An import whose tinyPM copy cannot be told apart is left alone, like an ambiguous match.
        held: settled?.held,
      });
      const claimed = await importClaims(o, job, found);
      const first = planWith(mapping, found, checked, claimed);
      // A target status set back since the last sync is an edit too: planned again with an
      // unknown status base wherever the target's history shows one (status-touched.ts).
      const touched = await statusTouchedSinceBase(ctx, first);
      if (touched.size === 0) return first;
      const links = withStatusUnknown(found.links, touched);
      return planWith(mapping, { ...found, links }, checked, claimed);
    },
    identity: () => found?.stats,
    links: () => found?.links ?? storedLinks,
  };
}

/**
 * Migrations read tinyPM in full; syncs read it by tiers (read-tinypm.ts) and the target by its
 * feed. The target's counterparts of tinyPM items that changed are fetched too, and so are the
 * tinyPM counterparts of target items that changed but lie in a section this run left out.
 */
async function readSides(o: RunJobOptions, job: PlanJob, mapping: CompiledMapping): Promise<Sides> {
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
          })
        : await readTinypmFull(o.lanes, o.tinypm, o.mode === "sync" ? "repair" : "migration");
    o.emit?.({ type: "phase", phase: `reading ${systemLabel(o.targetSystem)}` });
    const target = await readAll(o.lanes, o.targetSystem, o.target);
    return { tinypm: tinypmRead.side, target, tinypmRead };
  }
  const from = await o.state.getCheckpoint(job.name, o.targetSystem);
  const links = await linkViews(o.state, job.name);
  const pending = (await o.state.pendingIntents(job.name)).length;
  // A webhook's run reads only the items it named, once a first sync has linked the projects
  // and no create waits to be settled (both need the whole project).
  if (o.targetItems !== undefined && from !== undefined && o.fullScan !== true && pending === 0) {
    const targeted = await readTargeted(o, links, o.targetItems);
    if (targeted !== undefined) return targeted;
  }
  const tierState = await o.state.getCheckpoint(job.name, TIERS_STATE_KEY);
  const failures = await o.state.failures(job.name);
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
  });
  // Parked failures and resolved conflicts are settled whether or not their section was read.
  const resolvedIds = (await o.state.conflicts({ job: job.name, status: "resolved" })).flatMap(
    (c) => (c.appliedAt === undefined ? [{ kind: c.kind, id: c.tinypmId }] : []),
  );
  const withParked = await readCounterparts({
    lanes: o.lanes,
    read: first,
    targetItems: [],
    links,
    mapping,
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
  if (from !== undefined) extra.push(...changedCounterparts(mapping, links, withParked.side.items));
  o.emit?.({ type: "phase", phase: `reading ${systemLabel(o.targetSystem)}` });
  const target = await readChanges({
    lanes: o.lanes,
    system: o.targetSystem,
    tracker: o.target,
    from,
    extra,
  });
  // Target items no link knows are matched against every tinyPM item (the identity step):
  // read the rest of tinyPM, and the target counterparts of what changed there.
  const known = new Set(links.map((l) => `${l.kind}:${l.targetId}`));
  const unlinked = target.items.some((i) => !known.has(`${i.kind}:${i.id}`));
  const rest = unlinked
    ? await readRest(o.lanes, withParked, "unlinked")
    : { read: withParked, added: [] };
  const more = from === undefined ? [] : changedCounterparts(mapping, links, rest.added);
  const fetched = await fetchMissing(o, target, more);
  const tinypmRead = await readCounterparts({
    lanes: o.lanes,
    read: rest.read,
    targetItems: target.items,
    links,
    mapping,
    job: job.name,
  });
  const fresh = new Set([...(target.fresh ?? []), ...fetched.map((i) => `${i.kind}:${i.id}`)]);
  return {
    tinypm: tinypmRead.side,
    target: { ...target, items: [...target.items, ...fetched], fresh },
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
  o: RunJobOptions,
  job: PlanJob,
  sides: Sides,
  mapping: CompiledMapping,
): Promise<Sides> {
  const links = await linkViews(o.state, job.name);
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
    links,
    mapping,
    job: job.name,
  });
  return { tinypm: tinypmRead.side, target, tinypmRead };
}

/** Target ids of the linked tinyPM items whose content moved away from the last synced base. */
function changedCounterparts(
  mapping: CompiledMapping,
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
  o: RunJobOptions,
  target: SideRead,
  refs: readonly { kind: ItemKind; id: string }[],
): Promise<WorkItem[]> {
  const have = new Set(target.items.map((i) => `${i.kind}:${i.id}`));
  const out: WorkItem[] = [];
  for (const ref of refs) {
    if (have.has(`${ref.kind}:${ref.id}`)) continue;
    const item = await fetchOne(o.lanes, o.targetSystem, o.target, ref);
    if (item) out.push(item);
  }
  return out;
}

/** Decisions taken with `conflicts resolve`, still to apply, by `kind:tinypmId`. */
async function resolutions(
  state: StateStore,
  job: string,
): Promise<Map<string, Partial<Record<WorkItemFieldName, Side>>>> {
  const out = new Map<string, Partial<Record<WorkItemFieldName, Side>>>();
  for (const c of await state.conflicts({ job, status: "resolved" })) {
    if (c.appliedAt !== undefined || c.resolution === undefined) continue;
    const key = `${c.kind}:${c.tinypmId}`;
    out.set(key, { ...out.get(key), [c.field]: c.resolution });
  }
  return out;
}

/**
 * The import claims other jobs sharing the target hold on the unlinked target items this run may
 * import — unmarked ones — or that another job's marker names — a person's issue that job
 * imported, told apart from that job's own items, which it never claims (read, never written: a
 * dry run shows them too). One query, only when there are such items.
 */
async function importClaims(
  o: RunJobOptions,
  job: PlanJob,
  found: IdentityStep,
): Promise<ReadonlyMap<string, string> | undefined> {
  // Whatever the direction (a `migrate` plans to the target only): another job's import is
  // named as such, not as a foreign item.
  const linked = new Set(found.links.map((l) => `${l.kind}:${l.targetId}`));
  const ids = found.targetItems
    .filter((i) => markerOwner(i.marker, job) !== "ours" && !linked.has(`${i.kind}:${i.id}`))
    .map((i) => i.id);
  if (ids.length === 0) return undefined;
  return o.state.importClaims(o.targetSystem, claimLocation(o), ids);
}

/** A job's stored links as the planner sees them. */
async function linkViews(state: StateStore, job: string): Promise<LinkView[]> {
  const out: LinkView[] = [];
  for await (const l of state.links(job)) out.push(linkView(l));
  return out;
}
