import { z } from "zod";
import type { ClaimRecord, StateStore } from "../state/store.js";
import type { ServeJob } from "./types.js";

const count = z.number().int().min(0);

/** One import claim on a job's target, and the job that holds it. */
const ClaimApi = z
  .strictObject({
    targetId: z.string().describe("The claimed target item (GitHub issue number, Jira key)."),
    kind: z.enum(["story", "task"]),
    location: z.string().describe("The target it lives on (`github:<host>/<owner>/<repo>`, …)."),
    job: z.string().describe("The job holding the claim: it imports the item, no other job does."),
    claimedAt: z.string(),
    status: z
      .enum(["imported", "importing", "unlinked"])
      .describe(
        "`imported` once linked; `importing` while its import's intent waits; `unlinked` when the link was removed since.",
      ),
  })
  .describe("An import claim.");

export const JobClaimsApi = z
  .strictObject({
    held: count.describe("Import claims this job holds."),
    imported: count.describe("Of them, the ones whose item is linked."),
    items: z
      .array(ClaimApi)
      .describe(
        "The claims on this job's target held by any configured job (this one's too), oldest first.",
      ),
  })
  .describe("Import claims of the job's target (docs/sync.md, Two jobs on one target).");

export type ClaimApi = z.infer<typeof ClaimApi>;
export type JobClaimsApi = z.infer<typeof JobClaimsApi>;

/**
 * Every configured job's import claims (`claimsOf`, either backend), read once per answer, and
 * the view of one job: the claims on its target, by whichever job holds them. Where a job's target
 * location is unknown, it sees its own claims only.
 */
export async function claimsByJob(
  jobs: readonly ServeJob[],
  state: StateStore,
): Promise<(job: ServeJob) => JobClaimsApi> {
  const all: ClaimApi[] = [];
  for (const j of jobs) for (const c of await state.claimsOf(j.name)) all.push(claimApi(j.name, c));
  all.sort((a, b) => a.claimedAt.localeCompare(b.claimedAt) || a.job.localeCompare(b.job));
  return (job) => {
    const own = all.filter((c) => c.job === job.name);
    const at = job.target.location;
    return {
      held: own.length,
      imported: own.filter((c) => c.status === "imported").length,
      items: at === undefined ? own : all.filter((c) => c.location === at || c.job === job.name),
    };
  };
}

function claimApi(job: string, c: ClaimRecord): ClaimApi {
  return {
    targetId: c.targetId,
    kind: c.kind,
    location: c.location,
    job,
    claimedAt: c.claimedAt,
    status: c.status,
  };
}
