import { z } from "zod";
import type { Plan } from "../plan/plan-types.js";
import { digestOf } from "./digest.js";
import { isPlannedWrite, SavedAction, savedAction } from "./saved-action.js";

/** The format (and version) a saved plan declares; `apply` refuses any other. */
export const PLAN_FORMAT = "tinypm-sync/plan@1";

/** The parts of a job's config a plan was made with, each as a digest (secrets never enter). */
export const ConfigDigests = z.object({
  tinypm: z.string(),
  target: z.string(),
  job: z.string(),
  mapping: z.string(),
  users: z.string(),
  state: z.string(),
});
export type ConfigDigests = z.infer<typeof ConfigDigests>;

/** Which state a plan was made against, and how far that state had got with the job. */
export const PlanStateIdentity = z.object({
  /** The state's location (file path, or URL without its password). */
  location: z.string(),
  /** The job's newest run in the state when the plan was made (null: none yet). */
  lastRunId: z.string().nullable(),
  /** The job's links then. */
  links: z.number().int().nonnegative(),
});
export type PlanStateIdentity = z.infer<typeof PlanStateIdentity>;

/** A plan saved by `plan --save FILE`, carried out by `apply`. */
export const SavedPlanFile = z.object({
  format: z.literal(PLAN_FORMAT),
  /** The digest of everything below: names the plan in messages and in the state. */
  id: z.string(),
  createdAt: z.string(),
  job: z.string(),
  /** What the plan was made as: `sync` (default) or `migrate` (`plan --migrate`). */
  mode: z.enum(["sync", "migrate"]),
  targetSystem: z.string(),
  config: ConfigDigests,
  state: PlanStateIdentity,
  actions: z.array(SavedAction),
});
export type SavedPlanFile = z.infer<typeof SavedPlanFile>;

/** A plan as `apply` takes it: every action that writes, with what it read. */
export function savedPlanOf(o: {
  plan: Plan;
  mode: "sync" | "migrate";
  config: ConfigDigests;
  state: PlanStateIdentity;
  createdAt: string;
}): SavedPlanFile {
  const body = {
    format: PLAN_FORMAT,
    job: o.plan.job,
    mode: o.mode,
    targetSystem: o.plan.targetSystem,
    config: o.config,
    state: o.state,
    actions: o.plan.actions.filter(isPlannedWrite).map(savedAction),
  } as const;
  return { ...body, id: digestOf(body), createdAt: o.createdAt };
}
