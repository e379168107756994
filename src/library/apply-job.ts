import type { ResolvedJob } from "../config/load.js";
import { PlanMismatchError, PlanStaleError } from "../core/errors.js";
import type { RunReport } from "../sync/engine.js";
import type { ApiUse, SyncEvent } from "../sync/events.js";
import type { SavedPlanFile } from "../sync/saved-plan/plan-file.js";
import { checkPlan, restrictPlan, type PlanCheck } from "../sync/saved-plan/stale.js";
import { describeStale } from "../sync/saved-plan/stale-words.js";
import type { ConfigSession } from "./job-session.js";
import { openState } from "./job-state.js";
import { runResolvedJob } from "./run-job.js";
import { configDigests, differingParts } from "./saved-plan-config.js";
import { planStateVerdict } from "./saved-plan-state.js";

/** What `apply` did: ran the plan (all of it, or what an interrupted apply left), or nothing. */
export type ApplyResult =
  | {
      readonly kind: "applied";
      readonly run: RunReport;
      /** Saved actions an earlier, interrupted apply of the plan had carried out already. */
      readonly alreadyDone: number;
      /** Writes a fresh plan would make that the saved plan does not hold: left for later. */
      readonly outside: number;
    }
  | { readonly kind: "already-applied"; readonly runId: string };

/**
 * `apply` of a saved plan: refused when made for another config, job or state; refused with
 * `plan_stale` when the job ran since, or when anything an action depends on changed — checked
 * first by a dry run (nothing written, the state opened read-only), then again by the run itself
 * before its first write. Only the saved actions are carried out.
 */
export async function applySavedPlan(
  session: ConfigSession,
  resolved: ResolvedJob,
  plan: SavedPlanFile,
  opts: {
    file: string;
    signal?: AbortSignal | undefined;
    beforeForcedExit?: ((fn: () => void) => () => void) | undefined;
    onEvent?: ((e: SyncEvent) => void) | undefined;
  },
): Promise<ApplyResult> {
  const parts = differingParts(
    plan.config,
    configDigests(session.loaded, resolved),
    resolved,
    session.loaded,
  );
  if (parts.length > 0)
    throw new PlanMismatchError(
      `Plan ${opts.file} (${plan.id}) was made with another config for job "${plan.job}" than ${session.loaded.file}; what differs: ${parts.join(", ")}. Nothing was read or written.`,
      {
        hint: `Apply it with the config it was made with, or make a new plan: tinypm-sync plan --config ${session.loaded.file} --job ${plan.job}${plan.mode === "migrate" ? " --migrate" : ""} --save FILE.`,
        details: { plan: plan.id, differs: parts },
      },
    );
  const state = await openState(session.loaded, true);
  const { verdict, record } = await planStateVerdict(state, plan).finally(() => state.close());
  const remake = `make a new plan (tinypm-sync plan --config ${session.loaded.file} --job ${plan.job}${plan.mode === "migrate" ? " --migrate" : ""} --save FILE), review it and apply that`;
  switch (verdict.kind) {
    case "done":
      return { kind: "already-applied", runId: verdict.runId };
    case "other-state":
      throw new PlanMismatchError(
        `Plan ${opts.file} (${plan.id}) was made against another state than ${session.loaded.statePath}: ${verdict.message}. Nothing was read or written.`,
        { hint: `Apply it with the state it was made against, or ${remake}.` },
      );
    case "moved":
      throw new PlanStaleError(
        `Plan ${opts.file} (${plan.id}) is stale: job "${plan.job}" ran since it was made (run ${verdict.runId}, ${verdict.mode}). Nothing was written.`,
        {
          hint: `${remake[0]?.toUpperCase() ?? ""}${remake.slice(1)}.`,
          details: { run: verdict.runId },
        },
      );
    case "fresh":
    case "resume":
      break;
  }
  const resuming = verdict.kind === "resume";
  const refuse = (check: PlanCheck): PlanStaleError =>
    new PlanStaleError(
      `Plan ${opts.file} (${plan.id}) is stale: ${describeStale(check.stale, plan)} Nothing was written.`,
      {
        hint: `${remake[0]?.toUpperCase() ?? ""}${remake.slice(1)}.`,
        details: { plan: plan.id, stale: check.stale },
      },
    );
  // A dry run first: a stale plan is refused with nothing written anywhere, the state included.
  // Its warning of assignees lost is the run's own, which the run gives again: told once.
  const onEvent = opts.onEvent;
  const rehearsal = await runResolvedJob(session, resolved, {
    mode: plan.mode,
    dryRun: true,
    signal: opts.signal,
    onEvent:
      onEvent &&
      ((e) => {
        if (e.type !== "assignees_unmapped") onEvent(e);
      }),
  });
  const first = checkPlan(plan.actions, rehearsal.plan, resuming);
  if (first.stale.length > 0) throw refuse(first);
  let final: PlanCheck = first;
  const run = await runResolvedJob(session, resolved, {
    mode: plan.mode,
    dryRun: false,
    signal: opts.signal,
    beforeForcedExit: opts.beforeForcedExit,
    onEvent: opts.onEvent,
    savedPlan: {
      planId: plan.id,
      record,
      restrict: (fresh) => {
        final = checkPlan(plan.actions, fresh, resuming);
        if (final.stale.length > 0) throw refuse(final);
        return restrictPlan(fresh, final.run);
      },
    },
  });
  // What `apply` cost: its rehearsal's reads as well as the run's.
  const apiCalls = sumApiCalls(rehearsal.apiCalls, run.apiCalls);
  return {
    kind: "applied",
    run: { ...run, apiCalls },
    alreadyDone: final.done.length,
    outside: final.outside,
  };
}

function sumApiCalls(a: RunReport["apiCalls"], b: RunReport["apiCalls"]): RunReport["apiCalls"] {
  const out: Record<string, ApiUse> = {};
  for (const system of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = a[system];
    const y = b[system];
    out[system] = {
      reads: (x?.reads ?? 0) + (y?.reads ?? 0),
      writes: (x?.writes ?? 0) + (y?.writes ?? 0),
      notModified: (x?.notModified ?? 0) + (y?.notModified ?? 0),
      retries: (x?.retries ?? 0) + (y?.retries ?? 0),
      rateLimitWaits: (x?.rateLimitWaits ?? 0) + (y?.rateLimitWaits ?? 0),
    };
  }
  return out;
}
