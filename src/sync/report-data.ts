import { diffWordsWithSpace } from "diff";
import { describeAssigneeLoss } from "./plan/assignee-loss.js";
import type { JsonValue } from "../core/model.js";
import { systemLabel } from "../core/system-label.js";
import {
  REPORT_SCHEMA_VERSION,
  type Report,
  type ReportDeleteGuard,
  type ReportDescription,
  type ReportItem,
  type ReportValue,
} from "../report/types.js";
import type { RunReport } from "./engine.js";
import type { SyncEvent } from "./events.js";
import type { PlanAction, DescriptionNote } from "./plan/plan-types.js";
import { actionIds, itemKey, plannedOutcome } from "./outcome.js";
import { visible } from "./plan/plan-description.js";
import { estimateRunWrites } from "./write-estimate.js";
import { userKey } from "./plan/snapshot.js";
import {
  createdIndex,
  createLinks,
  createWrites,
  pairLinks,
  storyTitlesBySide,
  type CreatedIndex,
} from "./report-extras.js";

const value = (v: JsonValue | undefined): ReportValue => v ?? null;

/** What every item of a run's report is built from besides its action. */
interface ItemInput {
  /**
   * The run's failures by side and `kind:id` (`tinypm:story:12`, `target:story:12`): never by
   * title, which two items share, nor by a bare id, which a tinyPM item and a target item share.
   */
  readonly failures: ReadonlyMap<string, { code: string; message: string }>;
  readonly created: CreatedIndex;
  readonly titles: ReadonlyMap<string, string>;
  readonly target: string;
  /** Imports another job claimed while this run applied (`kind:targetId` → that job). */
  readonly claimed: ReadonlyMap<string, string>;
}

/** Why a `migrate` rerun leaves an item as it is: a person's edits on the target, for `sync`. */
export const KEPT_REASON = "edited on the target: a two-way sync carries it to tinyPM";

/** The failure the run met on an action's item, by its tinyPM id, else its target id. */
function failureOf(
  failures: ItemInput["failures"],
  action: PlanAction,
): { code: string; message: string } | undefined {
  const { tinypmId, targetId } = actionIds(action);
  return (
    (tinypmId === undefined
      ? undefined
      : failures.get(`tinypm:${itemKey(action.kind, tinypmId)}`)) ??
    (targetId === undefined ? undefined : failures.get(`target:${itemKey(action.kind, targetId)}`))
  );
}

/** How a report says that another job sharing the target imports an item. */
export const claimedReason = (job: string): string => `imported by job ${job}`;

function item(action: PlanAction, input: ItemInput): ReportItem {
  const { failures } = input;
  const base = {
    kind: action.kind,
    title: action.title,
    changes: [],
    conflicts: [],
    comments: 0,
    timeEntries: 0,
  };
  switch (action.type) {
    case "create": {
      const id = action.source.id;
      const claimedBy = input.claimed.get(`${action.kind}:${id}`);
      if (action.toSide === "tinypm" && claimedBy !== undefined)
        return { ...base, action: "skip", targetId: id, reason: claimedReason(claimedBy) };
      const error = failureOf(failures, action);
      const made = input.created.get(`${action.kind}:${id}`)?.id;
      const links = createLinks(action, input.created);
      const writes = createWrites(action, input.target, input.titles);
      return {
        ...base,
        action: error ? "failed" : "create",
        direction: action.toSide === "target" ? "to-target" : "to-tinypm",
        ...(action.toSide === "target"
          ? { tinypmId: id, ...(made !== undefined && { targetId: made }) }
          : { targetId: id, ...(made !== undefined && { tinypmId: made }) }),
        ...(writes.length > 0 && { writes }),
        ...(links !== undefined && { links }),
        ...createdDescription(action),
        comments: action.comments.length,
        timeEntries: action.timeEntries.length,
        error,
      };
    }
    case "update": {
      const outcome = plannedOutcome(action);
      const error = failureOf(failures, action);
      const links = pairLinks(action.tinypmItem, action.targetItem);
      const kept = action.keptOnTarget ?? [];
      return {
        ...base,
        action: error
          ? "failed"
          : outcome === "conflict"
            ? "conflict"
            : outcome === "updated"
              ? "update"
              : "skip",
        tinypmId: action.link.tinypmId,
        targetId: action.link.targetId,
        ...(links !== undefined && { links }),
        changes: action.changes.map((c) => ({
          field: c.field,
          toSide: c.toSide,
          from: value(c.from),
          to: value(c.to),
        })),
        conflicts: action.conflicts.map((c) => ({
          field: c.field,
          base: value(c.base),
          tinypm: value(c.tinypm),
          target: value(c.target),
          resolution: c.resolution,
        })),
        ...(action.descriptions !== undefined &&
          action.descriptions.length > 0 && {
            descriptions: action.descriptions.map(reportDescription),
          }),
        ...(kept.length > 0 && { kept: [...kept] }),
        // Nothing written, only a person's edits left on the target: listed, with why.
        ...(outcome === "kept" && { reason: KEPT_REASON }),
        ...(outcome === "unchanged" && { reason: "unchanged" }),
        comments: action.commentsToTarget.length + action.commentsToTinypm.length,
        timeEntries: action.timeToTarget.length + action.timeToTinypm.length,
        error,
      };
    }
    case "adopt": {
      const links = pairLinks(action.tinypmItem, action.targetItem);
      return {
        ...base,
        action: "adopt",
        tinypmId: action.tinypmItem.id,
        targetId: action.targetItem.id,
        ...(links !== undefined && { links }),
        reason: "found by its marker",
      };
    }
    case "delete":
      return {
        ...base,
        action: "delete",
        tinypmId: action.link.tinypmId,
        targetId: action.link.targetId,
        reason: `deleted on ${action.side === "target" ? "tinyPM" : "the target"}; ${action.mode === "none" ? "recorded only" : `${action.mode} on the other side${action.comment === undefined ? "" : ", with a comment saying why"}`}`,
      };
    case "skip":
      if (action.reason === "unreadable")
        return {
          ...base,
          action: "failed",
          tinypmId: action.tinypmId,
          targetId: action.targetId,
          reason:
            action.unreadableOn === "target"
              ? `unreadable on ${systemLabel(input.target)}`
              : "unreadable on tinyPM",
          error: action.failure ?? failureOf(failures, action),
        };
      return {
        ...base,
        action: "skip",
        tinypmId: action.tinypmId,
        targetId: action.targetId,
        reason:
          action.reason === "claimed" && action.claimedBy !== undefined
            ? claimedReason(action.claimedBy)
            : action.reason,
      };
  }
}

/** The report of a run, from the engine's plan, events and counters. */
export function toReport(run: RunReport): Report {
  if (!run.planKept)
    throw new Error(
      `internal: run ${run.runId} of job ${run.job} asked for its summary alone and kept no actions to report`,
    );
  const failures = new Map<string, { code: string; message: string }>();
  for (const e of run.events) {
    if (e.type !== "failed") continue;
    const error = { code: e.code, message: e.message };
    if (e.tinypmId !== undefined) failures.set(`tinypm:${itemKey(e.kind, e.tinypmId)}`, error);
    if (e.targetId !== undefined) failures.set(`target:${itemKey(e.kind, e.targetId)}`, error);
  }
  const estimated = estimateRunWrites(run.plan.actions, run.targetSystem, run.estimateInput);
  const dryRun = run.dryRun;
  const titles = storyTitles(run.plan.actions);
  const input: ItemInput = {
    failures,
    created: createdIndex(run.events),
    titles: storyTitlesBySide(run.plan.actions),
    target: run.targetSystem,
    claimed: claimedDuringApply(run.events),
  };
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    runId: run.runId,
    job: run.job,
    mode: run.mode,
    dryRun,
    target: run.targetSystem,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    summary: { ...run.summary },
    apiCalls: run.apiCalls,
    ...(dryRun ? { estimatedWrites: estimated } : {}),
    tinypmRead: {
      complete: run.tinypmRead.complete,
      ...(run.tinypmRead.fullReason === undefined ? {} : { fullReason: run.tinypmRead.fullReason }),
      sections: run.tinypmRead.sections.map((s) => ({
        name: s.name,
        closed: s.closed,
        stories: s.stories,
        reason: s.reason,
      })),
      fetched: run.tinypmRead.fetched,
      ...(run.tinypmRead.listings === undefined ? {} : { listings: run.tinypmRead.listings }),
      ...((run.tinypmRead.notRead ?? 0) > 0 && { notRead: run.tinypmRead.notRead }),
    },
    ...(run.deleteGuard !== undefined && { deleteGuard: reportGuard(run.deleteGuard) }),
    items: run.plan.actions.map((a) => withStory(item(a, input), a, titles)),
    users: {
      matches: run.users.matches.map((m) => ({
        tinypm: userKey(m.tinypm) ?? "?",
        target: userKey(m.target) ?? "?",
        how: m.how,
        ...(m.reason !== undefined && { reason: m.reason }),
      })),
      unmapped: run.users.unmapped.map((u) => userKey(u) ?? "?"),
      ...(run.users.assigneeLoss.items > 0 && {
        assigneeLoss: {
          ...run.users.assigneeLoss,
          message: describeAssigneeLoss(run.users.assigneeLoss, run.targetSystem),
        },
      }),
    },
    notes: [...waitNotes(run.events), ...identityNotes(run), ...claimNotes(run)],
  };
}

function reportGuard(g: NonNullable<RunReport["deleteGuard"]>): ReportDeleteGuard {
  return {
    maxDeletes: g.maxDeletes,
    limit: g.limit,
    links: g.links,
    planned: { ...g.planned },
    over: [...g.over],
    allowed: g.allowed,
    ...(g.message !== undefined && { message: g.message }),
    ...(g.hint !== undefined && { hint: g.hint }),
  };
}

function claimedDuringApply(events: readonly SyncEvent[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of events)
    if (e.type === "skipped" && e.claimedBy !== undefined && e.targetId !== undefined)
      out.set(`${e.kind}:${e.targetId}`, e.claimedBy);
  return out;
}

/**
 * One note per job that imports items of the shared target this job left alone (claimed at plan
 * time or while applying): no error, no failure.
 */
function claimNotes(run: RunReport): string[] {
  const byJob = new Map<string, number>();
  const count = (job: string): void => {
    byJob.set(job, (byJob.get(job) ?? 0) + 1);
  };
  for (const a of run.plan.actions)
    if (a.type === "skip" && a.reason === "claimed" && a.claimedBy !== undefined)
      count(a.claimedBy);
  for (const job of claimedDuringApply(run.events).values()) count(job);
  return [...byJob].map(
    ([job, n]) =>
      `Left ${n} item${n === 1 ? "" : "s"} of the shared target to job ${job}, which claimed ${n === 1 ? "it" : "them"} first and imports ${n === 1 ? "it" : "them"}.`,
  );
}

/** tinyPM story id → title, so that tasks can be grouped under their story. */
function storyTitles(actions: readonly PlanAction[]): Map<string, string> {
  const titles = new Map<string, string>();
  for (const a of actions) {
    if (a.kind !== "story") continue;
    if (a.type === "create" && a.toSide === "target") titles.set(a.source.id, a.title);
    else if (a.type === "update" || a.type === "delete") titles.set(a.link.tinypmId, a.title);
    else if (a.type === "adopt") titles.set(a.tinypmItem.id, a.title);
    else if (a.type === "skip" && a.tinypmId !== undefined) titles.set(a.tinypmId, a.title);
  }
  return titles;
}

function withStory(
  reportItem: ReportItem,
  action: PlanAction,
  titles: Map<string, string>,
): ReportItem {
  if (action.kind !== "task") return reportItem;
  const parent =
    action.type === "create"
      ? action.toSide === "target"
        ? action.parentSourceId
        : undefined
      : action.type === "update"
        ? action.tinypmItem.parentId
        : action.type === "adopt"
          ? action.tinypmItem.parentId
          : action.type === "delete"
            ? action.link.parentTinypmId
            : undefined;
  const storyTitle = parent === undefined ? undefined : titles.get(parent);
  return storyTitle === undefined ? reportItem : { ...reportItem, storyTitle };
}

/** The time the run's waits for limits took (a retry's backoff is not a limit), from the gate's wait events. */
export function waitNotes(events: readonly SyncEvent[]): string[] {
  const open = new Map<string, boolean>();
  let pauses = 0;
  let total = 0;
  for (const e of events) {
    if (e.type === "wait_start") open.set(e.system, e.reason !== "retry");
    else if (e.type === "wait_end") {
      if (open.get(e.system) === true) {
        pauses++;
        total += e.waitedMs;
      }
      open.delete(e.system);
    }
  }
  if (pauses === 0) return [];
  return [
    `Waited ${Math.round(total / 100) / 10} s for rate limits (${pauses} pause${pauses === 1 ? "" : "s"}).`,
  ];
}

/** What the identity step did, for people (docs/sync.md, Identity). */
function identityNotes(run: RunReport): string[] {
  const id = run.identity;
  const out: string[] = [];
  const byMarker = id.rebuilt.filter((r) => r.how === "marker").length;
  const byContent = id.rebuilt.filter((r) => r.how === "content");
  if (byMarker > 0)
    out.push(
      `Rebuilt ${byMarker} link${byMarker === 1 ? "" : "s"} from markers (the state did not hold them).`,
    );
  if (byContent.length > 0) {
    const high = byContent.filter((r) => r.confidence === "high").length;
    out.push(
      `Matched ${byContent.length} item${byContent.length === 1 ? "" : "s"} by content (marker and link both lost): ${high} with high, ${byContent.length - high} with medium confidence.`,
    );
  }
  if (id.ambiguous.length > 0)
    out.push(
      `Parked ${id.ambiguous.length} ambiguous content match${id.ambiguous.length === 1 ? "" : "es"}: ${id.ambiguous.map((a) => `"${a.title}"`).join(", ")} (see \`tinypm-sync status\`).`,
    );
  // Marked items another job imported from the shared target are named by the claim notes.
  const claimed = new Set(
    run.plan.actions.flatMap((a) =>
      a.type === "skip" && a.reason === "claimed" ? [`${a.kind}:${a.targetId ?? ""}`] : [],
    ),
  );
  const foreign = id.foreign.filter((f) => !claimed.has(`${f.kind}:${f.id}`)).length;
  if (foreign > 0)
    out.push(
      `Left alone ${foreign} foreign item${foreign === 1 ? "" : "s"}: marked by another job or another tinyPM.`,
    );
  if (id.blockless > 0)
    out.push(
      `${id.blockless} linked item${id.blockless === 1 ? "" : "s"} had no hidden block: the state's copy stood in; the block is written back on the item's next write (or now with --repair-markers).`,
    );
  return out;
}

/** A description note as a report entry: the word diff of its visible text, line breaks kept. */
/**
 * A create writes its whole description: its word diff is that text, all added (issue 21: every
 * description the plan writes shows its diff). There is nothing on the other side to keep.
 */
function createdDescription(action: Extract<PlanAction, { type: "create" }>): {
  descriptions?: ReportDescription[];
} {
  const text = visible(
    action.toSide === "target" ? action.source.description : action.draft.description,
  );
  if (text === "") return {};
  return { descriptions: [reportDescription({ toSide: action.toSide, before: "", after: text })] };
}

function reportDescription(d: DescriptionNote): ReportDescription {
  const diff = diffWordsWithSpace(d.before, d.after).map((part) => ({
    op: part.added ? ("added" as const) : part.removed ? ("removed" as const) : ("same" as const),
    text: part.value,
  }));
  return {
    toSide: d.toSide,
    diff,
    ...(d.rich !== undefined && {
      rich: {
        outcome: d.rich.outcome,
        kept: d.rich.kept,
        rewritten: d.rich.rewritten,
        removed: d.rich.removed,
        lost: d.rich.lost.map((l) => ({
          excerpt: l.excerpt,
          what: [...l.what],
          ...(l.where !== undefined && { where: l.where }),
        })),
        ...(d.rich.written === true && { written: true }),
      },
    }),
  };
}
