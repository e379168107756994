import type { ReferenceServer } from "../../src/reference-server/index.js";
import type { GithubSandbox } from "../../src/sandboxes/github/index.js";
import type { JiraSandbox } from "../../src/sandboxes/jira/index.js";

/** One edit "a person" made, on the side and item it was made on. */
export interface Edit {
  readonly seq: number;
  readonly job: string;
  readonly side: "tinypm" | "target";
  /** The item's id on its side (tinyPM id, GitHub issue number, Jira issue id). */
  readonly id: string;
  /** The item's kind, where its id alone does not say it (tinyPM numbers stories and tasks apart). */
  readonly kind?: "story" | "task";
  /** Another id of the same item (a Jira issue's numeric id beside its key). */
  readonly alt?: string;
  readonly field: "title" | "description" | "status";
  /** In tinyPM terms (a target status is given as the tinyPM status it maps to). */
  readonly value: string;
  /** When the edit was made (ISO, ms): once the server answered it. */
  readonly at: string;
}

/** Where each job's edits go. */
export interface EditTarget {
  readonly job: string;
  readonly project: number;
  readonly github?: GithubSandbox | undefined;
  readonly jira?: JiraSandbox | undefined;
}

const pick = <T>(xs: readonly T[]): T | undefined => xs[Math.floor(Math.random() * xs.length)];

async function call(url: string, init: RequestInit): Promise<unknown> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  if (res.status >= 300)
    throw new Error(`${init.method ?? "GET"} ${url}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

const ghHeaders = (g: GithubSandbox) => ({
  authorization: `Bearer ${g.token}`,
  "content-type": "application/json",
  accept: "application/vnd.github+json",
});
const jiraHeaders = (j: JiraSandbox) => ({
  authorization: `Basic ${Buffer.from(`${j.email}:${j.token}`).toString("base64")}`,
  "content-type": "application/json",
});

/**
 * A person editing by hand: tinyPM stories and tasks (titles, descriptions, statuses — straight
 * in the reference server's store, as one atomic write), and target issues through the
 * sandbox's REST API (titles, GitHub states, Jira descriptions), and new stories on both sides.
 * Every edit is recorded with a unique value.
 */
export function createEditor(
  tinypm: ReferenceServer,
  targets: readonly EditTarget[],
  /** Runs each tinyPM store write of the person (a trace tells them from the tool's). */
  person: <T>(write: () => T) => T = (write) => write(),
) {
  const edits: Edit[] = [];
  let seq = 0;
  const record = (e: Omit<Edit, "seq" | "at">): void => {
    edits.push({ ...e, seq, at: new Date().toISOString() });
  };

  const tinypmEdit = (t: EditTarget): void => {
    const store = tinypm.store;
    const stories = store.storiesOf(t.project);
    const story = pick(stories);
    if (story === undefined) return;
    const text = `edit ${++seq} on tinyPM`;
    const roll = Math.random();
    if (roll < 0.15) {
      const s = person(() =>
        store.createStory({
          projectId: t.project,
          position: store.nextPosition(t.project),
          name: `new story ${seq} from tinyPM`,
          description: `born on tinyPM ${seq}`,
          tags: [],
        }),
      );
      record({
        job: t.job,
        side: "tinypm",
        kind: "story",
        id: String(s.id),
        field: "title",
        value: s.name,
      });
      return;
    }
    if (roll < 0.35) {
      const task = pick(store.tasksOf(story.id));
      if (task === undefined) return;
      const { id, ...rest } = task;
      person(() => store.replaceTask(id, { ...rest, name: text }));
      record({
        job: t.job,
        side: "tinypm",
        kind: "task",
        id: String(id),
        field: "title",
        value: text,
      });
      return;
    }
    const { id, ...rest } = story;
    if (roll < 0.6) {
      person(() => store.replaceStory(id, { ...rest, name: text }));
      record({
        job: t.job,
        side: "tinypm",
        kind: "story",
        id: String(id),
        field: "title",
        value: text,
      });
    } else if (roll < 0.8) {
      person(() => store.replaceStory(id, { ...rest, description: `description ${seq}` }));
      record({
        job: t.job,
        side: "tinypm",
        kind: "story",
        id: String(id),
        field: "description",
        value: `description ${seq}`,
      });
    } else {
      const status = story.acceptanceStatus === "ACCEPTED" ? "PENDING" : "ACCEPTED";
      person(() => store.replaceStory(id, { ...rest, acceptanceStatus: status }));
      record({
        job: t.job,
        side: "tinypm",
        kind: "story",
        id: String(id),
        field: "status",
        value: status,
      });
    }
  };

  const githubEdit = async (t: EditTarget, g: GithubSandbox, storyNumbers: ReadonlySet<string>) => {
    const base = `${g.url}/repos/${g.owner}/${g.repo}/issues`;
    const roll = Math.random();
    if (roll < 0.15) {
      const title = `new issue ${++seq} from GitHub`;
      const made = (await call(base, {
        method: "POST",
        headers: ghHeaders(g),
        body: JSON.stringify({ title, body: `born on GitHub ${seq}` }),
      })) as { number: number };
      record({ job: t.job, side: "target", id: String(made.number), field: "title", value: title });
      return;
    }
    const issues = (await call(`${base}?state=all&per_page=100`, { headers: ghHeaders(g) })) as {
      number: number;
      state: string;
    }[];
    const issue = pick(issues);
    if (issue === undefined) return;
    const id = String(issue.number);
    if (roll < 0.7 || !storyNumbers.has(id)) {
      const title = `edit ${++seq} on GitHub`;
      await call(`${base}/${id}`, {
        method: "PATCH",
        headers: ghHeaders(g),
        body: JSON.stringify({ title }),
      });
      record({ job: t.job, side: "target", id, field: "title", value: title });
      return;
    }
    seq++;
    const close = issue.state === "open";
    await call(`${base}/${id}`, {
      method: "PATCH",
      headers: ghHeaders(g),
      body: JSON.stringify(
        close ? { state: "closed", state_reason: "completed" } : { state: "open" },
      ),
    });
    record({
      job: t.job,
      side: "target",
      id,
      field: "status",
      value: close ? "ACCEPTED" : "PENDING",
    });
  };

  const jiraEdit = async (t: EditTarget, j: JiraSandbox) => {
    const api = `${j.url}/rest/api/3`;
    const roll = Math.random();
    if (roll < 0.15) {
      const summary = `new issue ${++seq} from Jira`;
      const made = (await call(`${api}/issue`, {
        method: "POST",
        headers: jiraHeaders(j),
        body: JSON.stringify({
          fields: { project: { key: j.projectKey }, summary, issuetype: { name: "Story" } },
        }),
      })) as { id: string; key: string };
      record({
        job: t.job,
        side: "target",
        id: made.key,
        alt: made.id,
        field: "title",
        value: summary,
      });
      return;
    }
    const found = (await call(`${api}/search/jql`, {
      method: "POST",
      headers: jiraHeaders(j),
      body: JSON.stringify({
        jql: `project = ${j.projectKey}`,
        fields: ["summary"],
        maxResults: 100,
      }),
    })) as { issues: { id: string; key: string }[] };
    const issue = pick(found.issues);
    if (issue === undefined) return;
    if (roll < 0.7) {
      const summary = `edit ${++seq} on Jira`;
      await call(`${api}/issue/${issue.id}`, {
        method: "PUT",
        headers: jiraHeaders(j),
        body: JSON.stringify({ fields: { summary } }),
      });
      record({
        job: t.job,
        side: "target",
        id: issue.key,
        alt: issue.id,
        field: "title",
        value: summary,
      });
      return;
    }
    const text = `jira description ${++seq}`;
    await call(`${api}/issue/${issue.id}`, {
      method: "PUT",
      headers: jiraHeaders(j),
      body: JSON.stringify({
        fields: {
          description: {
            type: "doc",
            version: 1,
            content: [{ type: "paragraph", content: [{ type: "text", text }] }],
          },
        },
      }),
    });
    record({
      job: t.job,
      side: "target",
      id: issue.key,
      alt: issue.id,
      field: "description",
      value: text,
    });
  };

  return {
    edits,
    /** One random edit on one random job; `storyNumbers` names the target ids linked as stories. */
    async editOnce(storyTargets: (job: string) => Promise<ReadonlySet<string>>): Promise<void> {
      const t = pick(targets);
      if (t === undefined) return;
      if (Math.random() < 0.5) {
        tinypmEdit(t);
        return;
      }
      if (t.github !== undefined) await githubEdit(t, t.github, await storyTargets(t.job));
      else if (t.jira !== undefined) await jiraEdit(t, t.jira);
    },
  };
}
