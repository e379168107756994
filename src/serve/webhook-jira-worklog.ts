import type { ItemSelection, ServeJob } from "./types.js";

/** Where a Jira issue is: its key and its project's key. */
export interface LocatedIssue {
  readonly key: string;
  readonly project: string;
}

/**
 * Finds a Jira issue by its numeric id on one target (by the target's name): `undefined` when
 * that site has no such issue (or the token cannot see it). Throws when the site cannot answer.
 */
export type JiraIssueLocator = (
  target: string,
  issueId: string,
) => Promise<LocatedIssue | undefined>;

/** The jobs a delivery is for and the items it names (none: the delivery is ignored, for `why`). */
export interface WorklogRoute {
  readonly jobs: readonly string[];
  readonly items: ItemSelection;
  readonly why?: string | undefined;
}

type JiraJob = ServeJob & { readonly target: Extract<ServeJob["target"], { type: "jira" }> };

const originOf = (url: string | undefined): string | undefined => {
  if (url === undefined) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};

/**
 * Routes a `worklog_*` delivery, which names its issue by numeric id only (no key, no project):
 * each Jira target that may hold the issue — the one whose site the worklog's `self` URL is on,
 * else every target signed with the delivery's secret — is asked which issue that id is, and the
 * delivery goes to the jobs on that issue's project, naming the issue by key (as links do). A
 * site that cannot answer loses nothing: its jobs get the delivery by id, as a targeted run
 * reads an issue by id as well as by key.
 */
export async function routeWorklog(
  signedFor: readonly ServeJob[],
  issueId: string,
  worklogSelf: string | undefined,
  locate: JiraIssueLocator | undefined,
): Promise<WorklogRoute> {
  const jira = signedFor.filter((j): j is JiraJob => j.target.type === "jira");
  const from = originOf(worklogSelf);
  const onSite = jira.filter((j) => from !== undefined && originOf(j.target.baseUrl) === from);
  const candidates = onSite.length > 0 ? onSite : jira;
  const byTarget = new Map<string, JiraJob[]>();
  for (const j of candidates)
    byTarget.set(j.target.name, [...(byTarget.get(j.target.name) ?? []), j]);
  const jobs = new Set<string>();
  const items = new Set<string>();
  const seen: string[] = [];
  for (const [target, targetJobs] of byTarget) {
    let found: LocatedIssue | undefined;
    try {
      if (locate === undefined) throw new Error("no locator");
      found = await locate(target, issueId);
    } catch {
      // The site did not answer: the jobs read the issue by id in their run (nothing dropped).
      for (const j of targetJobs) jobs.add(j.name);
      items.add(issueId);
      continue;
    }
    if (found === undefined) continue;
    seen.push(found.key);
    for (const j of targetJobs) {
      if (j.target.project !== found.project) continue;
      jobs.add(j.name);
      items.add(found.key);
    }
  }
  return {
    jobs: [...jobs],
    items,
    why:
      seen.length === 0
        ? `no Jira target has an issue with id ${issueId}`
        : `no job syncs the project of ${seen.join(", ")}`,
  };
}
