import { NotFoundError, PermissionError, UsageError } from "../../core/errors.js";
import { systemLabel } from "../../core/system-label.js";
import type { JsonValue, SystemName, WorkItem } from "../../core/model.js";
import type { Tracker } from "../../core/tracker.js";
import type { LinkRecord, RunRecord } from "../../state/records.js";
import { targetSnapshot, tinypmSnapshot } from "../plan/snapshot.js";
import {
  decodeTierState,
  encodeTierState,
  TIERS_STATE_KEY,
  undoneTierState,
} from "../plan/tiers.js";
import { changedSince } from "./changed-since.js";
import { undoContainers, type ContainersUndone } from "./containers.js";
import { readCreations, type Creation } from "./creations.js";
import type { UndoItem, UndoKept, UndoOptions, UndoReport } from "./undo-types.js";

/** Where an undo stands: the removal under way (its intent) and the items decided to be kept. */
interface Progress {
  readonly pending: string;
  readonly kept: readonly string[];
}

const progressKey = (runId: string): string => `undo:${runId}`;
const itemKey = (c: Pick<Creation, "kind" | "tinypmId">): string => `${c.kind}:${c.tinypmId}`;

/**
 * Takes back what one run created: tasks first, then stories, then the milestones, sprints and
 * labels it created that nothing else uses (containers.ts); each item a person changed since
 * (any synced field, a comment, a time entry) is kept and listed with the reason, and so is a
 * story one of whose tasks stays. Before each removal its intent is recorded; after it, the link
 * goes and the intent is cleared: a rerun after a crash finds the item gone (or closed and marked
 * undone) and only finishes the record. A rerun removes nothing twice and keeps nothing twice.
 */
export async function undoRun(o: UndoOptions): Promise<UndoReport> {
  const runs = await o.state.runs({ job: o.job });
  const run = runs.find((r) => r.id === o.runId);
  if (run === undefined)
    throw new UsageError(`Job "${o.job}" has no run ${o.runId}.`, {
      hint: `List the job's runs with \`tinypm-sync status --config FILE\` and pass one of their ids to --run.`,
    });
  const creations = await readCreations(o.state, o.job, o.runId);
  if (creations === undefined && (run.counts.created ?? 0) > 0)
    throw new UsageError(
      `Run ${o.runId} of job "${o.job}" created ${run.counts.created} item(s), but the state holds no record of which: it ran before undo existed.`,
      { hint: "Remove its items by hand, or restore the state from before the run." },
    );
  const { removed, kept } =
    creations === undefined ? { removed: [], kept: [] } : await undoItems(o, runs, run, creations);
  // The tinyPM items whose copies it removed are unlinked now, those in closed iterations too,
  // which a tiered sync would not read for up to `fullScanEvery` runs: the next one reads all.
  if (!o.dryRun && removed.some((r) => r.side === "target")) {
    const stored = decodeTierState(await o.state.getCheckpoint(o.job, TIERS_STATE_KEY));
    await o.state.setCheckpoint(
      o.job,
      TIERS_STATE_KEY,
      encodeTierState(undoneTierState(stored, o.runId)),
    );
  }
  // Then the milestones, sprints and labels it created, which nothing else uses now.
  return report(o, removed, kept, await undoContainers(o, removed));
}

/** Whether GitHub issues are deleted for good (admin token) or closed and marked undone. */
interface Deletes {
  allowed?: boolean | undefined;
}

async function undoItems(
  o: UndoOptions,
  runs: readonly RunRecord[],
  run: RunRecord,
  creations: readonly Creation[],
): Promise<{ removed: UndoItem[]; kept: UndoKept[] }> {
  const deletes: Deletes = {};
  const progress = await readProgress(o);
  const keptBefore = new Set(progress.kept);
  const removed: UndoItem[] = [];
  const kept: UndoKept[] = [];
  const mine = new Set(creations.map(itemKey));
  const order = [...creations].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === "task" ? -1 : 1));
  // Tasks linked under a story of the run that the run did not create (a later sync's).
  const laterTasks = new Map<string, string>();
  for await (const l of o.state.links(o.job, "task"))
    if (l.parentTinypmId !== undefined && !mine.has(`task:${l.tinypmId}`))
      laterTasks.set(l.parentTinypmId, l.tinypmId);
  const keptTasksOf = new Map<string, string>();
  for (const c of order) {
    const key = itemKey(c);
    if (keptBefore.has(key)) continue;
    const link = await o.state.getLinkByTinypm(o.job, c.kind, c.tinypmId);
    // Already taken back (a rerun), or relinked to another item since: not this run's any more.
    if (link?.targetId !== c.targetId) continue;
    const item = await current(o, c);
    // A create noted by a run killed outright: the base its link holds, if no later run wrote it.
    const known = c.base === undefined ? noteBase(c, link, settledBy(runs, run)) : { base: c.base };
    const reason =
      ("reason" in known ? known.reason : undefined) ??
      keepReason(o, c, known.base, item, keptTasksOf, laterTasks) ??
      (await othersTaskUnder(o, c, item, creations));
    const named = itemOf(o, c);
    if (reason !== undefined) {
      kept.push({ ...named, reason });
      if (c.kind === "task" && c.parentTinypmId !== undefined)
        keptTasksOf.set(c.parentTinypmId, c.tinypmId);
      if (!o.dryRun)
        await saveProgress(o, { ...progress, kept: [...keptBefore, ...kept.map(itemKey)] });
      continue;
    }
    if (o.dryRun) {
      const how = closesOnly(o, c) && !(await mayDelete(o, deletes)) ? "closed" : "deleted";
      removed.push({ ...named, how });
      continue;
    }
    // The intent first: a crash between the removal and the record leaves it for the rerun.
    await saveProgress(o, { pending: key, kept: [...keptBefore, ...kept.map(itemKey)] });
    const how =
      item !== undefined && !alreadyUndone(o, item)
        ? await remove(o, c, item, deletes)
        : item === undefined
          ? "deleted"
          : "closed";
    removed.push({ ...named, how });
    if (c.side === "tinypm") await releaseImported(o, c);
    await o.state.deleteLink(o.job, c.kind, c.tinypmId);
    await saveProgress(o, { pending: "", kept: [...keptBefore, ...kept.map(itemKey)] });
  }
  return { removed, kept };
}

function report(
  o: UndoOptions,
  removed: UndoItem[],
  kept: UndoKept[],
  containers: ContainersUndone,
): UndoReport {
  return {
    runId: o.runId,
    job: o.job,
    dryRun: o.dryRun,
    summary: { removed: removed.length, kept: kept.length },
    removed,
    kept,
    containers,
  };
}

/**
 * Whether this undo may delete GitHub issues for good: the tracker can (`purge`) and the token
 * is an admin of the repository (asked once). A refusal later makes it false for the rest.
 */
async function mayDelete(o: UndoOptions, deletes: Deletes): Promise<boolean> {
  if (deletes.allowed !== undefined) return deletes.allowed;
  const canPurge = o.target.canPurge?.bind(o.target);
  if (o.target.purge === undefined) deletes.allowed = false;
  else if (canPurge === undefined) deletes.allowed = true;
  else
    deletes.allowed = await o.lanes.run(o.targetSystem, {
      name: "ask whether the token may delete issues",
      kind: "read",
      run: () => canPurge(),
    });
  return deletes.allowed;
}

function itemOf(o: UndoOptions, c: Creation): UndoItem {
  return {
    kind: c.kind,
    side: c.side,
    tinypmId: c.tinypmId,
    targetId: c.targetId,
    title: c.title,
    ...(c.url === undefined ? {} : { url: c.url }),
  };
}

/**
 * When a run killed outright was settled: the end of the job's first run after it (which took
 * over its unconfirmed creates), else the run's own end; undefined when neither is known.
 */
function settledBy(runs: readonly RunRecord[], run: RunRecord): string | undefined {
  const later = runs
    .filter((r) => r.startedAt >= run.startedAt && r.id !== run.id && r.finishedAt !== undefined)
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  return later[0]?.finishedAt ?? run.finishedAt;
}

/**
 * The base of a create noted while its run went (the run never recorded its own): its link's,
 * when the link was last written by that run or the one that settled it; a link written later
 * may hold a person's change as its base, and the item is kept.
 */
function noteBase(
  c: Creation,
  link: LinkRecord | undefined,
  settled: string | undefined,
): { base: JsonValue } | { reason: string; base?: undefined } {
  if (link === undefined) return { reason: "its link is gone" };
  if (settled !== undefined && link.updatedAt > settled)
    return {
      reason: `its run was killed before recording it, and a later run wrote its link at ${link.updatedAt}: whether a person changed it since cannot be told; remove it by hand if it should go`,
    };
  return { base: c.side === "target" ? link.base.target : link.base.tinypm };
}

/** Why an item stays, or undefined when it may go. */
function keepReason(
  o: UndoOptions,
  c: Creation,
  base: JsonValue | undefined,
  item: WorkItem | undefined,
  keptTasksOf: ReadonlyMap<string, string>,
  laterTasks: ReadonlyMap<string, string>,
): string | undefined {
  if (base !== undefined && item !== undefined && !alreadyUndone(o, item)) {
    const snapshot =
      c.side === "target" ? targetSnapshot(o.mapping, item) : tinypmSnapshot(o.mapping, item);
    const fields = changedSince(snapshot, base);
    if (fields.length > 0) return `changed since the run: ${fields.join(", ")}`;
  }
  if (c.kind !== "story") return undefined;
  const task = keptTasksOf.get(c.tinypmId);
  if (task !== undefined) return `its task ${task} (tinyPM) is kept`;
  const later = laterTasks.get(c.tinypmId);
  if (later !== undefined) return `its task ${later} (tinyPM) was linked after the run`;
  return undefined;
}

/**
 * A task on the created side under a story about to be deleted that this run did not create (a
 * person's, made by hand since): deleting the story would take it along (Jira deletes sub-tasks
 * with their parent, tinyPM tasks with their story), so the story stays. One listing of the
 * story's tasks; none on GitHub, where the story is closed and its sub-issues stay as they are.
 */
async function othersTaskUnder(
  o: UndoOptions,
  c: Creation,
  item: WorkItem | undefined,
  creations: readonly Creation[],
): Promise<string | undefined> {
  if (c.kind !== "story" || item === undefined || closesOnly(o, c)) return undefined;
  const id = c.side === "target" ? c.targetId : c.tinypmId;
  const mine = new Set(
    creations
      .filter((t) => t.kind === "task" && t.side === c.side)
      .map((t) => (c.side === "target" ? t.targetId : t.tinypmId)),
  );
  const tasks = await o.lanes.run(systemOf(o, c), {
    name: `list the tasks of ${c.kind} ${id}`,
    kind: "read",
    run: async () => {
      const out: string[] = [];
      for await (const t of trackerOf(o, c).list({ kind: "task", parentId: id })) out.push(t.id);
      return out;
    },
  });
  const other = tasks.find((t) => !mine.has(t));
  if (other === undefined) return undefined;
  const where = c.side === "target" ? systemLabel(o.targetSystem) : "tinyPM";
  return `its task ${other} (${where}) was not made by the run and would go with it`;
}

function closesOnly(o: UndoOptions, c: Creation): boolean {
  return o.targetSystem === "github" && c.side === "target";
}

/** An item this undo already closed and marked (GitHub), before a crash kept it from the record. */
function alreadyUndone(o: UndoOptions, item: WorkItem): boolean {
  return item.marker?.undone === o.runId;
}

function trackerOf(o: UndoOptions, c: Creation): Tracker {
  return c.side === "target" ? o.target : o.tinypm;
}

function systemOf(o: UndoOptions, c: Creation): SystemName {
  return c.side === "target" ? o.targetSystem : "tinypm";
}

/** The created item as it is now; undefined when it is gone. */
async function current(o: UndoOptions, c: Creation): Promise<WorkItem | undefined> {
  const id = c.side === "target" ? c.targetId : c.tinypmId;
  return o.lanes.run(systemOf(o, c), {
    name: `get ${c.kind} ${id}`,
    kind: "read",
    run: () => trackerOf(o, c).get({ kind: c.kind, id }),
  });
}

/**
 * Removes one item: deleted where the system allows it (Jira, tinyPM, and GitHub for a token
 * with admin rights: GraphQL `deleteIssue`); else, on GitHub, closed as not planned with its
 * marker saying undone, so that it is never linked, adopted or found by marker again. A GitHub
 * refusal to delete (FORBIDDEN) falls back to closing, for this item and the rest.
 */
async function remove(
  o: UndoOptions,
  c: Creation,
  item: WorkItem,
  deletes: Deletes,
): Promise<"deleted" | "closed"> {
  const ref = { kind: c.kind, id: item.id };
  const tracker = trackerOf(o, c);
  const github = closesOnly(o, c);
  const purge = tracker.purge?.bind(tracker);
  if (github && purge !== undefined && (await mayDelete(o, deletes))) {
    try {
      await o.lanes.run(systemOf(o, c), {
        name: `delete ${c.kind} ${item.id}`,
        kind: "write",
        run: () => purge(ref),
      });
      return "deleted";
    } catch (error) {
      if (!(error instanceof PermissionError)) throw error;
      deletes.allowed = false;
    }
  }
  return o.lanes.run(systemOf(o, c), {
    name: `undo ${c.kind} ${item.id}`,
    kind: "write",
    run: async () => {
      if (github && item.marker !== undefined) {
        await tracker.update(ref, {
          set: { status: "closed:not_planned" },
          marker: { ...item.marker, undone: o.runId },
          metadata: item.metadata,
        });
        return "closed" as const;
      }
      try {
        await tracker.delete(ref);
      } catch (error) {
        // Gone already (a rerun after a crash): what the removal wanted.
        if (!(error instanceof NotFoundError)) throw error;
      }
      return github ? ("closed" as const) : ("deleted" as const);
    },
  });
}

/**
 * The person's target item an undone import came from: its marker is rewritten as undone, so the
 * item counts as unmarked again and a later import brings it back (once).
 */
async function releaseImported(o: UndoOptions, c: Creation): Promise<void> {
  const ref = { kind: c.kind, id: c.targetId };
  const source = await o.lanes.run(o.targetSystem, {
    name: `get ${c.kind} ${c.targetId}`,
    kind: "read",
    run: () => o.target.get(ref),
  });
  const marker = source?.marker;
  if (source === undefined || marker === undefined || marker.undone !== undefined) return;
  await o.lanes.run(o.targetSystem, {
    name: `release ${c.kind} ${c.targetId}`,
    kind: "write",
    run: () =>
      o.target.update(ref, {
        set: {},
        marker: { ...marker, undone: o.runId },
        metadata: source.metadata,
      }),
  });
}

async function readProgress(o: UndoOptions): Promise<Progress> {
  const cp = await o.state.getCheckpoint(o.job, progressKey(o.runId));
  const kept = typeof cp?.kept === "string" ? (JSON.parse(cp.kept) as string[]) : [];
  return { pending: typeof cp?.pending === "string" ? cp.pending : "", kept };
}

async function saveProgress(o: UndoOptions, p: Progress): Promise<void> {
  await o.state.setCheckpoint(o.job, progressKey(o.runId), {
    pending: p.pending,
    kept: JSON.stringify([...new Set(p.kept)]),
  });
}
