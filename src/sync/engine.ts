import { linkedNotRead } from "./not-read.js";
import { InterruptedError, LimitWaitError } from "../core/errors.js";
import type { Iteration, SystemName, UserRef } from "../core/model.js";
import type { CompiledMapping } from "../mapping/compile.js";
import type { UserMatch } from "../mapping/user-match.js";
import { applyPlan } from "./apply/apply.js";
import { newRunMemory } from "./apply/run-memory.js";
import {
  assigneeLoss,
  assigneeLossError,
  describeAssigneeLoss,
  NO_ASSIGNEE_LOSS,
  type AssigneeLoss,
} from "./plan/assignee-loss.js";
import type { EngineContext } from "./context.js";
import { emptySummary, type ApiUse, type RunSummary, type SyncEvent } from "./events.js";
import type { IdentityStats } from "./settle/identity-step.js";
import { settle, unsettled } from "./settle/settle.js";
import { tinypmFloors } from "./apply/tinypm-anchor.js";
import { planRun, readDeletions } from "./plan-step.js";
import { ensureIterations } from "./apply/iterations.js";
import { readEstimateInput, type WriteEstimateInput } from "./read/estimate-input.js";
import { estimateRunWrites } from "./write-estimate.js";
import { readRun, type RunRead } from "./read/run-read.js";
import { readCreateDefaultsAhead } from "./apply/create-marker.js";
import { count, finishedOutcome, plannedOutcome } from "./outcome.js";
import type { EngineOptions, RunMode } from "./run-options.js";
import type { Plan } from "./plan/plan-types.js";
import { packCreateSources } from "./plan/lazy-create.js";
import type { TinypmReadInfo } from "./read/read-tinypm.js";
import { TIERS_STATE_KEY } from "./plan/tiers.js";
import type { PlanJob } from "./plan/plan-input.js";
import type { JobLease } from "../state/store.js";
import type { Checkpoint } from "../core/tracker.js";
import { claimLocation } from "./claim-location.js";
import { guardStateWrites } from "./lease-guard.js";
import { assertDeletesAllowed, deleteGuardOf, type RunDeleteGuard } from "./mass-delete.js";
import { creationsLog, recordCreations, type CreationsLog } from "./undo/creations.js";
import { migrationCheckpoint, planLeavesNothing } from "./migration-checkpoint.js";
import { APPLY_RECORD_KEY, encodeApplyRecord } from "./saved-plan/apply-record.js";

export type { EngineOptions, RunMode };

/**
 * Events only a live display reads: the report keeps none of them. A 16,000-item migration
 * emitted 16,006 `phase` events (stories and their tasks are created in turn), all kept to the
 * end of the run for nothing.
 */
const DISPLAY_ONLY: ReadonlySet<SyncEvent["type"]> = new Set([
  "phase",
  "progress",
  "read_progress",
  "request",
]);

const NO_IDENTITY: IdentityStats = { rebuilt: [], foreign: [], ambiguous: [], blockless: 0 };

/** Everything a report shows about one run (or dry run) of a job. */
export interface RunReport {
  readonly runId: string;
  readonly job: string;
  readonly mode: RunMode;
  readonly dryRun: boolean;
  readonly targetSystem: SystemName;
  readonly plan: Plan;
  /**
   * Whether `plan` holds the run's actions: not after a real run asked for its summary alone
   * (run-options.ts `report`), which let go of each action as it was applied.
   */
  readonly planKept: boolean;
  /** What was read of tinyPM: everything, or which tiers (sections) and why. */
  readonly tinypmRead: TinypmReadInfo;
  readonly summary: RunSummary;
  readonly apiCalls: Record<string, ApiUse>;
  readonly users: {
    readonly matches: readonly UserMatch[];
    readonly unmapped: readonly UserRef[];
    /** Items sent to the target with an unmatched assignee, counted before any write. */
    readonly assigneeLoss: AssigneeLoss;
  };
  /** What the run did, in order: every event but those only a live display reads (`phase`,
   * `progress`, `read_progress`, `request`), which go to `emit` alone. */
  readonly events: readonly SyncEvent[];
  /** Links rebuilt from markers or content, foreign items, ambiguous matches, missing blocks. */
  readonly identity: IdentityStats;
  /**
   * Linked items the plan deletes or closes on each side against the job's `maxDeletes`: a dry
   * run over the limit shows that the real run would stop (`mass_delete`).
   */
  readonly deleteGuard?: RunDeleteGuard | undefined;
  /** What a dry run read of the target for its write estimate (report-data.ts). */
  readonly estimateInput?: WriteEstimateInput | undefined;
  readonly startedAt: string;
  readonly finishedAt: string;
}

/**
 * Runs one job as one straight pipeline: read (read/run-read.ts: both sides, the stored links,
 * users, status history — no write), settle (settle/settle.ts: interrupted creates, lost links,
 * import claims — the only writes before apply), plan (pure, once), then — unless this is a dry
 * run — apply through the lanes and record links, bases and the target's checkpoint. A dry run
 * (`plan`) writes nothing to any system or to the state.
 */
export async function runEngine(o: EngineOptions): Promise<RunReport> {
  const now = o.now ?? (() => new Date());
  const dry = o.dryRun === true;
  const job: PlanJob =
    o.mode === "migrate"
      ? {
          ...o.job,
          direction: o.job.direction === "to-tinypm" ? "to-tinypm" : "to-target",
          // A one-way copy of a two-way job: a person's edit on the target is kept for `sync`.
          keepTargetEdits: o.job.direction === "both",
        }
      : o.job;
  // A real run holds the job's lease: no other process (a PostgreSQL state shared by several
  // workers) runs the job meanwhile. A dry run writes nothing, so it holds nothing.
  const lease = dry ? undefined : await o.state.claimJob(job.name, { waitMs: o.leaseWaitMs ?? 0 });
  try {
    if (lease === undefined) return await runHeld(o, job, dry, now, undefined);
    // Every write of the run — each request the gates send with `kind: "write"`, each record of
    // an intent, a link, a base, a checkpoint — first asks the lease; once it is lost, none goes.
    o.fence?.hold(lease);
    const check = (): void => {
      if (o.fence === undefined) lease.assertHeld();
      else o.fence.check();
    };
    return await runHeld({ ...o, state: guardStateWrites(o.state, check) }, job, dry, now, lease, {
      journal: o.state,
    });
  } catch (error) {
    // Whatever the lease's loss broke (an aborted request, a refused record), the run stopped
    // because of it: say so, naming the job and why.
    throw lease?.signal.aborted === true ? (lease.signal.reason as Error) : error;
  } finally {
    await lease?.release();
  }
}

async function runHeld(
  o: EngineOptions,
  job: PlanJob,
  dry: boolean,
  now: () => Date,
  lease: JobLease | undefined,
  /** Where the run's start and end are journalled: the state itself, never the guarded view. */
  { journal }: { journal: EngineOptions["state"] } = { journal: o.state },
): Promise<RunReport> {
  const startedAt = now().toISOString();
  const events: SyncEvent[] = [];
  // Each create noted as it is made, for `undo` of a run killed outright (undo/creations.ts).
  let created: CreationsLog | undefined;
  const emit = (e: SyncEvent): void => {
    if (!DISPLAY_ONLY.has(e.type)) events.push(e);
    created?.note(e);
    o.emit?.(e);
  };
  const runId = dry ? `dry-${Date.now().toString(36)}` : await startRun(journal, o, job.name);
  if (!dry) created = creationsLog(journal, job.name, runId);
  // The milestones, sprints and labels the target tracker creates, noted for `undo` as made.
  if (!dry)
    o.target.watchContainers?.((c) => {
      emit({ type: "container_created", kind: c.kind, id: c.id, name: c.name });
    });
  const summary = emptySummary();
  try {
    // read, settle, plan: in a step of its own, so that once the plan is made nothing here holds
    // the read (every item of both sides) but the plan's own actions.
    const p = await prepare(o, job, dry, now, runId, emit);
    const { plan, ctx, mapping, tinypmIterations } = p;
    // A summary run lets go of each action once applied (run-options.ts `report`).
    const release = !dry && o.report === "summary";
    let estimateInput: WriteEstimateInput | undefined;
    if (dry) {
      countPlan(plan, summary);
      if (job.direction !== "to-tinypm")
        estimateInput = await readEstimateInput(o.target, mapping, plan, tinypmIterations);
    } else {
      // apply: through the lanes, every intent before its create, every base after its write.
      lease?.assertHeld();
      readCreateDefaultsAhead(ctx, plan.actions);
      emit({ type: "write_forecast", writes: estimateRunWrites(plan.actions, o.targetSystem) });
      if (job.direction !== "to-tinypm") await ensureIterations(ctx, plan, tinypmIterations);
      await applyPlan(ctx, plan, summary, o.confirmGroup, { release });
      // record: what the run created, the apply record or the checkpoints, then the journal.
      lease?.assertHeld();
      // What the run created, for `undo` (src/sync/undo/creations.ts).
      await created?.flush();
      await recordCreations(o.state, job.name, runId, events);
      if (o.savedPlan !== undefined) {
        // Applied in full unless an item failed: then a rerun of `apply` tries it again.
        const runs = [...(o.savedPlan.record?.runs ?? []), runId];
        const done = summary.failed === 0;
        await o.state.setCheckpoint(
          job.name,
          APPLY_RECORD_KEY,
          encodeApplyRecord({ planId: o.savedPlan.planId, runs, done }),
        );
      } else {
        // A migration read the whole target: past its own writes, the first sync need not.
        const checkpoint =
          o.mode === "sync"
            ? p.targetCheckpoint
            : p.targetComplete
              ? await migrationCheckpoint(ctx, p.planSettles, summary)
              : undefined;
        if (checkpoint !== undefined) {
          lease?.assertHeld();
          await o.state.setCheckpoint(job.name, o.targetSystem, checkpoint);
          emit({ type: "checkpoint_saved", system: o.targetSystem });
        }
      }
      // record: the tinyPM tiers read, once the run is applied.
      if (p.tinypmTiers !== undefined && o.savedPlan === undefined)
        await o.state.setCheckpoint(job.name, TIERS_STATE_KEY, p.tinypmTiers);
    }
    const report = finish({
      o,
      runId,
      job,
      // Its actions given up as applied: none is left to report.
      plan: release ? { job: plan.job, targetSystem: plan.targetSystem, actions: [] } : plan,
      planKept: !release,
      tinypmRead: p.tinypmRead,
      summary,
      users: p.users,
      events,
      identity: p.identity,
      deleteGuard: p.deleteGuard,
      estimateInput,
      startedAt,
      now,
    });
    if (!dry)
      await journal.finishRun(runId, {
        outcome: finishedOutcome(summary),
        counts: {
          ...summary,
          linksRebuilt: p.identity.rebuilt.length,
          foreign: p.identity.foreign.length,
        },
        apiCalls: report.apiCalls,
      });
    return report;
  } catch (error) {
    if (!dry) {
      // A lost lease fails the run (exit 3, like an unreachable state): it did not finish, and
      // the next holder settles what it left. The database may be unreachable: then the run
      // stays `running` until the next holder's claim marks it interrupted.
      const lost = lease?.signal.aborted === true;
      const outcome = error instanceof InterruptedError && !lost ? "interrupted" : "failed";
      // The creates it made before it stopped can be taken back too.
      await created?.flush();
      if (!lost) await recordCreations(journal, job.name, runId, events).catch(() => undefined);
      await journal
        .finishRun(runId, {
          outcome,
          // A stop for a limit is no fault: the status names it and when a rerun proceeds.
          counts: {
            ...summary,
            // Every item the run made counts, the one cut short after its create and link too:
            // what `undo --run` takes back, and what `status` sets beside the linked items.
            created: Math.max(summary.created, events.filter((e) => e.type === "created").length),
            ...(error instanceof LimitWaitError && { limitWaitUntil: error.resumeAt }),
          },
          apiCalls: apiUse(o),
        })
        .catch((journalError: unknown) => {
          if (!lost) throw journalError;
        });
    }
    throw error;
  } finally {
    if (!dry) o.target.watchContainers?.(undefined);
  }
}

/** What the read, settle and plan steps leave for the rest of a run: no item of the read but
 * those the plan's actions carry. */
interface Prepared {
  readonly plan: Plan;
  readonly ctx: EngineContext;
  readonly mapping: CompiledMapping;
  readonly tinypmIterations: readonly Iteration[];
  readonly users: RunReport["users"];
  readonly deleteGuard: RunDeleteGuard;
  readonly identity: IdentityStats;
  /** What was read of tinyPM, with the linked items the plan names none of (not-read.ts). */
  readonly tinypmRead: TinypmReadInfo;
  readonly tinypmTiers: Checkpoint | undefined;
  readonly targetCheckpoint: Checkpoint | undefined;
  readonly targetComplete: boolean;
  /** The plan leaves nothing a sync must find by a full read (migration-checkpoint.ts). */
  readonly planSettles: boolean;
}

/**
 * read (read/run-read.ts: both sides, the stored links, users, status history — no write),
 * settle (settle/settle.ts: interrupted creates, lost links, import claims — the only writes
 * before apply) and plan (pure, once). The assignee policy and the deletion guard stop a run
 * here, before its first write.
 */
async function prepare(
  o: EngineOptions,
  job: PlanJob,
  dry: boolean,
  now: () => Date,
  runId: string,
  emit: (e: SyncEvent) => void,
): Promise<Prepared> {
  // read: every remote and state read the plan needs, one plain value (read/run-read.ts).
  const read = await readRun(o, job, dry, now());
  const { mapping, tinypmIterations, target } = read;
  // The assignee policy and the deletion guard stop a run before its first write, settling
  // included: both are decided from the read and the stored links alone.
  const users = {
    ...read.users,
    assigneeLoss: read.quiet ? NO_ASSIGNEE_LOSS : lossOf(o, job, read),
  };
  if (!dry)
    assertDeletesAllowed(
      job,
      o.targetSystem,
      readDeletions(job, o.targetSystem, read, now()),
      read.links,
    );
  const ctx = {
    ...context(o, job, runId, mapping, emit, now, tinypmIterations),
    tinypmFloors: tinypmFloors(read.tinypm.items, read.tinypm.inStep),
  };
  // settle: interrupted creates, lost links, import claims — the only writes before apply.
  if (!read.quiet) emit({ type: "phase", phase: "planning" });
  const settled = read.quiet ? unsettled(read) : await settle(ctx, read, dry);
  // plan: pure, once.
  const planned = planRun(job, o.targetSystem, read, settled, now());
  // `apply`: only the saved plan's actions, each as it was saved (else plan_stale, unwritten).
  const chosen = o.savedPlan === undefined ? planned : o.savedPlan.restrict(planned);
  // A migration's creates keep their sources packed: past this step nothing holds the read's
  // items as objects. A sync's creates are the few items that changed: kept as read.
  const plan: Plan =
    o.mode === "migrate" ? { ...chosen, actions: packCreateSources(chosen.actions) } : chosen;
  // Settling and rebuilding links may have changed the plan: the guard looks again, before
  // the plan's first write (a dry run only reports what it finds).
  const deleteGuard = dry
    ? deleteGuardOf(job, o.targetSystem, plan, settled.links)
    : assertDeletesAllowed(job, o.targetSystem, plan, settled.links);
  return {
    plan,
    ctx,
    mapping,
    tinypmIterations,
    users,
    deleteGuard,
    identity: settled.identity ?? NO_IDENTITY,
    // Linked items a tiered read left out, so that the totals account for every link.
    tinypmRead: { ...read.tinypmRead, notRead: linkedNotRead(settled.links, planned) },
    tinypmTiers: read.tinypmTiers,
    targetCheckpoint: target.checkpoint,
    targetComplete: target.complete,
    planSettles: planLeavesNothing(plan.actions),
  };
}

/**
 * Items sent to the target with an unmatched assignee, counted from the read and the stored
 * links: announced, and under the `fail` policy the run stops here, before any write.
 */
function lossOf(o: EngineOptions, job: PlanJob, read: RunRead): AssigneeLoss {
  if (job.direction === "to-tinypm" || read.users.table === undefined) return NO_ASSIGNEE_LOSS;
  const loss = assigneeLoss({
    items: read.tinypm.items,
    links: read.links,
    table: read.users.table,
    syncsAssignees: (kind) => read.mapping.fieldNames(kind).includes("assignees"),
  });
  if (loss.items > 0) {
    const message = describeAssigneeLoss(loss, o.targetSystem);
    o.emit?.({ type: "assignees_unmapped", items: loss.items, policy: loss.policy, message });
    if (loss.policy === "fail") throw assigneeLossError(loss, o.targetSystem);
  }
  return loss;
}

/**
 * Journals the run's start. An `apply` records in the same transaction that the run is one of
 * its plan's, so that a rerun after a crash knows the state moved only by applying the plan.
 */
async function startRun(
  journal: EngineOptions["state"],
  o: EngineOptions,
  job: string,
): Promise<string> {
  const saved = o.savedPlan;
  if (saved === undefined) return journal.startRun(job, o.mode);
  return journal.transaction(async (tx) => {
    const runId = await tx.startRun(job, o.mode);
    const runs = [...(saved.record?.runs ?? []), runId];
    await tx.setCheckpoint(
      job,
      APPLY_RECORD_KEY,
      encodeApplyRecord({ planId: saved.planId, runs, done: false }),
    );
    return runId;
  });
}

function context(
  o: EngineOptions,
  job: PlanJob,
  runId: string,
  mapping: CompiledMapping,
  emit: (e: SyncEvent) => void,
  now: () => Date,
  iterations: readonly Iteration[],
): EngineContext {
  return {
    job,
    runId,
    targetSystem: o.targetSystem,
    targetLocation: claimLocation(o),
    tinypm: o.tinypm,
    target: o.target,
    mapping,
    state: o.state,
    lanes: o.lanes,
    emit,
    now,
    tinypmIterations: new Map(iterations.map((it) => [it.name, it])),
    memory: newRunMemory(),
  };
}

/** A dry run's summary: every action's planned outcome (outcome.ts), as a real run counts it. */
function countPlan(plan: Plan, summary: RunSummary): void {
  for (const a of plan.actions) count(summary, plannedOutcome(a));
}

/** The run's API use: its request gates' counts (plus the lanes' own retries), per system. */
function apiUse(o: EngineOptions): Record<string, ApiUse> {
  const lanes = o.lanes.counters();
  const use = (system: string): ApiUse => {
    const lane = lanes[system];
    return {
      reads: lane?.reads ?? 0,
      writes: lane?.writes ?? 0,
      notModified: lane?.notModified ?? 0,
      retries: lane?.retries ?? 0,
      rateLimitWaits: lane?.rateLimitWaits ?? 0,
    };
  };
  return { tinypm: use("tinypm"), [o.targetSystem]: use(o.targetSystem) };
}

function finish(a: {
  o: EngineOptions;
  runId: string;
  job: PlanJob;
  plan: Plan;
  planKept: boolean;
  tinypmRead: TinypmReadInfo;
  summary: RunSummary;
  users: RunReport["users"];
  events: SyncEvent[];
  identity: IdentityStats;
  deleteGuard: RunDeleteGuard;
  estimateInput?: WriteEstimateInput | undefined;
  startedAt: string;
  now: () => Date;
}): RunReport {
  return {
    runId: a.runId,
    job: a.job.name,
    mode: a.o.mode,
    dryRun: a.o.dryRun === true,
    targetSystem: a.o.targetSystem,
    plan: a.plan,
    planKept: a.planKept,
    tinypmRead: a.tinypmRead,
    summary: a.summary,
    apiCalls: apiUse(a.o),
    users: a.users,
    events: a.events,
    identity: a.identity,
    deleteGuard: a.deleteGuard,
    ...(a.estimateInput !== undefined && { estimateInput: a.estimateInput }),
    startedAt: a.startedAt,
    finishedAt: a.now().toISOString(),
  };
}
