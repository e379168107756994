import { readFileSync, writeFileSync } from "node:fs";
import type { ResolvedJob } from "../config/load.js";
import { PlanMismatchError } from "../core/errors.js";
import type { RunReport } from "../sync/engine.js";
import { savedPlanOf, SavedPlanFile, PLAN_FORMAT } from "../sync/saved-plan/plan-file.js";
import type { ConfigSession } from "./job-session.js";
import { openState } from "./job-state.js";
import { configDigests } from "./saved-plan-config.js";
import { planStateIdentity } from "./saved-plan-state.js";

/**
 * The plan of a dry run as `apply` takes it: its writing actions with the digests of what they
 * read, the digests of the config, and which state it was made against. No secret enters.
 */
export async function savedPlanFor(
  session: ConfigSession,
  resolved: ResolvedJob,
  run: RunReport,
): Promise<SavedPlanFile> {
  const state = await openState(session.loaded, true);
  try {
    return savedPlanOf({
      plan: run.plan,
      mode: run.mode,
      config: configDigests(session.loaded, resolved),
      state: await planStateIdentity(state, resolved.job.name),
      createdAt: run.finishedAt,
    });
  } finally {
    await state.close();
  }
}

/** Writes a saved plan (JSON). */
export function writeSavedPlan(file: string, plan: SavedPlanFile): void {
  writeFileSync(file, `${JSON.stringify(plan, null, 2)}\n`);
}

/** Reads a saved plan; anything else (another format or version, no JSON) is refused. */
export function readSavedPlan(file: string): SavedPlanFile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new PlanMismatchError(`${file} is not a saved plan: ${(error as Error).message}.`, {
      hint: "Pass the file `tinypm-sync plan … --save FILE` wrote.",
      cause: error,
    });
  }
  const parsed = SavedPlanFile.safeParse(raw);
  if (!parsed.success) {
    const format = (raw as { format?: unknown } | null)?.format;
    throw new PlanMismatchError(
      typeof format === "string" && format !== PLAN_FORMAT
        ? `${file} is a plan of format ${format}; this tinypm-sync applies ${PLAN_FORMAT} only.`
        : `${file} is not a saved plan of format ${PLAN_FORMAT}: ${parsed.error.issues
            .slice(0, 3)
            .map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`)
            .join("; ")}.`,
      { hint: "Make the plan again with this version: tinypm-sync plan … --save FILE." },
    );
  }
  return parsed.data;
}
