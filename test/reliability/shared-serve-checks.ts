import type { ReferenceServer } from "../../src/reference-server/index.js";
import type { WorkersWorld } from "./workers-world.js";

/** The two target systems of the shared-target test, and the job names' prefixes for them. */
export type SharedSystem = "github" | "jira";
export const systemOfJob = (job: string): SharedSystem =>
  job.startsWith("gh") ? "github" : "jira";

/** The jobs linking each target story, by `system:targetId`. */
export type Owners = Map<string, string[]>;
export const ownerKey = (system: SharedSystem, targetId: string): string => `${system}:${targetId}`;

/** An issue a person opened on a shared target, with its latest title. */
export interface PersonIssue {
  readonly system: SharedSystem;
  /** GitHub issue number, Jira key. */
  readonly id: string;
  /** The Jira issue's numeric id. */
  readonly alt?: string | undefined;
  title: string;
}

/** One pair of jobs sharing a target, as the test ends. */
export interface PairView {
  readonly system: SharedSystem;
  readonly jobs: readonly string[];
  readonly projects: readonly number[];
  /** Each job's story links. */
  readonly links: ReadonlyMap<string, readonly { tinypmId: string; targetId: string }[]>;
  readonly issues: readonly PersonIssue[];
  /** The issues on the shared target (every job's and the person's). */
  readonly targetCount: number;
}

async function call(url: string, init: RequestInit): Promise<unknown> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  if (res.status >= 300)
    throw new Error(`${init.method ?? "GET"} ${url}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/**
 * A person on the shared targets: opens issues (no marker: nobody's yet) and retitles them
 * through the sandboxes' REST APIs, as the vendors' web pages do.
 */
export function createPerson(w: WorkersWorld) {
  const g = w.github[0];
  const j = w.jira[0];
  if (g === undefined || j === undefined) throw new Error("the world has no shared targets");
  const gh = `${g.url}/repos/${g.owner}/${g.repo}/issues`;
  const ghHeaders = {
    authorization: `Bearer ${g.token}`,
    "content-type": "application/json",
    accept: "application/vnd.github+json",
  };
  const api = `${j.url}/rest/api/3`;
  const jiraHeaders = {
    authorization: `Basic ${Buffer.from(`${j.email}:${j.token}`).toString("base64")}`,
    "content-type": "application/json",
  };
  const issues: PersonIssue[] = [];
  let retitles = 0;
  return {
    issues,
    get retitles() {
      return retitles;
    },
    async open(system: SharedSystem, title: string): Promise<void> {
      if (system === "github") {
        const made = (await call(gh, {
          method: "POST",
          headers: ghHeaders,
          body: JSON.stringify({ title, body: `${title}, opened by a person` }),
        })) as { number: number };
        issues.push({ system, id: String(made.number), title });
        return;
      }
      const made = (await call(`${api}/issue`, {
        method: "POST",
        headers: jiraHeaders,
        body: JSON.stringify({
          fields: { project: { key: j.projectKey }, summary: title, issuetype: { name: "Story" } },
        }),
      })) as { id: string; key: string };
      issues.push({ system, id: made.key, alt: made.id, title });
    },
    /** Retitles one of the person's issues of `system`, picked at random. */
    async retitle(system: SharedSystem): Promise<void> {
      const mine = issues.filter((i) => i.system === system);
      const issue = mine[Math.floor(Math.random() * mine.length)];
      if (issue === undefined) return;
      const title = `${issue.title.replace(/ \(retitled \d+\)$/, "")} (retitled ${++retitles})`;
      if (system === "github") {
        await call(`${gh}/${issue.id}`, {
          method: "PATCH",
          headers: ghHeaders,
          body: JSON.stringify({ title }),
        });
      } else {
        await call(`${api}/issue/${issue.alt ?? issue.id}`, {
          method: "PUT",
          headers: jiraHeaders,
          body: JSON.stringify({ fields: { summary: title } }),
        });
      }
      issue.title = title;
    },
    /** How many issues the shared target of `system` holds. */
    async count(system: SharedSystem): Promise<number> {
      if (system === "github")
        return ((await call(`${gh}?state=all&per_page=100`, { headers: ghHeaders })) as unknown[])
          .length;
      const found = (await call(`${api}/search/jql`, {
        method: "POST",
        headers: jiraHeaders,
        body: JSON.stringify({
          jql: `project = ${j.projectKey}`,
          fields: ["summary"],
          maxResults: 100,
        }),
      })) as { issues: unknown[] };
      return found.issues.length;
    },
  };
}

const idsOf = (i: PersonIssue): string[] => (i.alt === undefined ? [i.id] : [i.id, i.alt]);

/** The jobs of the pair linking a person's issue, with the tinyPM story each links it to. */
function linksOf(v: PairView, issue: PersonIssue): { job: string; tinypmId: string }[] {
  return v.jobs.flatMap((job) =>
    (v.links.get(job) ?? [])
      .filter((l) => idsOf(issue).includes(l.targetId))
      .map((l) => ({ job, tinypmId: l.tinypmId })),
  );
}

/**
 * Exactly one tinyPM story per person's issue across the pair's projects, holding its latest
 * title; no other story in those projects (every one linked by its job); no other issue on the
 * target than the jobs' stories and the person's issues.
 */
export function storyProblems(tinypm: ReferenceServer, v: PairView, storiesPerProject: number) {
  const out: string[] = [];
  const stories = v.projects.flatMap((p, k) =>
    tinypm.store
      .storiesOf(p)
      .map((s) => ({ job: v.jobs[k] ?? "?", id: String(s.id), name: s.name })),
  );
  const expected = v.projects.length * storiesPerProject + v.issues.length;
  if (stories.length !== expected)
    out.push(
      `${v.system}: ${stories.length} tinyPM stories in projects ${v.projects.join(", ")}, expected ${expected}`,
    );
  if (v.targetCount !== expected)
    out.push(`${v.system}: ${v.targetCount} issues on the shared target, expected ${expected}`);
  for (const s of stories)
    if (!(v.links.get(s.job) ?? []).some((l) => l.tinypmId === s.id))
      out.push(`${v.system}: tinyPM story ${s.id} "${s.name}" of ${s.job} is not linked`);
  for (const issue of v.issues) {
    const links = linksOf(v, issue);
    if (links.length !== 1) {
      out.push(
        `${v.system} ${issue.id} "${issue.title}": linked by ${links.length} jobs (${links.map((l) => l.job).join(", ")})`,
      );
      continue;
    }
    const { job, tinypmId } = links[0] ?? { job: "", tinypmId: "" };
    const story = stories.find((s) => s.job === job && s.id === tinypmId);
    if (story?.name !== issue.title)
      out.push(
        `${v.system} ${issue.id}: tinyPM story is "${story?.name ?? "missing"}", the issue's title "${issue.title}"`,
      );
  }
  return out;
}

/** Every person's issue is linked by exactly one job of the pair in `owners` (the final view). */
export function ownerProblems(v: PairView, owners: Owners): string[] {
  return v.issues.flatMap((issue) => {
    const jobs = idsOf(issue).flatMap((id) => owners.get(ownerKey(v.system, id)) ?? []);
    return jobs.length === 1 ? [] : [`${v.system} ${issue.id}: owned by [${jobs.join(", ")}]`];
  });
}

interface PlanJson {
  items: { action: string; targetId?: string; reason?: string }[];
}

/**
 * In the final plan of the job that did not import a person's issue, the issue shows once, as
 * imported by the job that did; in that job's plan, once, and not as a create.
 */
export function reportProblems(v: PairView, plans: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const issue of v.issues) {
    const owner = linksOf(v, issue)[0]?.job;
    if (owner === undefined) continue; // storyProblems says so
    for (const job of v.jobs) {
      const plan = JSON.parse(plans.get(job) ?? '{"items":[]}') as PlanJson;
      const items = plan.items.filter((i) => idsOf(issue).includes(i.targetId ?? ""));
      const shown = items.map(
        (i) => `${i.action}${i.reason === undefined ? "" : ` (${i.reason})`}`,
      );
      const ok =
        items.length === 1 &&
        (job === owner
          ? items[0]?.action !== "create"
          : items[0]?.action === "skip" && items[0].reason === `imported by job ${owner}`);
      if (!ok) out.push(`${job}'s plan shows ${v.system} ${issue.id} as [${shown.join(", ")}]`);
    }
  }
  return out;
}

interface StatusClaims {
  jobs: { job: string; claims?: { held: number; imported: number; open: unknown[] } }[];
}

/**
 * `status --json`: each job holds one claim per person's issue it imported, every one of them
 * imported (none left importing or unlinked).
 */
export function claimProblems(v: PairView, statusJson: string): string[] {
  const status = JSON.parse(statusJson) as StatusClaims;
  const out: string[] = [];
  for (const job of v.jobs) {
    const claims = status.jobs.find((j) => j.job === job)?.claims;
    const imported = v.issues.filter((i) => linksOf(v, i)[0]?.job === job).length;
    if (claims?.held !== imported || claims.imported !== imported)
      out.push(
        `${job}: status shows ${claims === undefined ? "no claims" : `${claims.held} claims, ${claims.imported} imported`}; it imported ${imported}`,
      );
    if ((claims?.open.length ?? 0) > 0)
      out.push(`${job}: claims not imported ${JSON.stringify(claims?.open)}`);
  }
  return out;
}
