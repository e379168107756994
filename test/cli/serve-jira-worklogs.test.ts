import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { startWebhookRelay, type WebhookRelay } from "../support/webhook-relay.js";
import { tempDir, writeConfig } from "./fixtures.js";
import { editConfig, eventually, getJson, startServe, type Served } from "./serve-support.js";

// Two Jira sites signing their deliveries with one secret, each registered for worklog events
// only (as an admin may tick them): a worklog delivery names its issue by numeric id alone, and
// both sites number their issues alike, so only a lookup tells which job the delivery is for.
const SECRET = `jira-hook-${randomUUID()}`;
const WORKLOG_EVENTS = ["worklog_created", "worklog_updated", "worklog_deleted"];
let tinypm: ReferenceServer;
let widgets: JiraSandbox;
let ops: JiraSandbox;
let github: GithubSandbox;
let served: Served;
const tmp = tempDir();

interface Run {
  id: string;
  job: string;
  finishedAt: string | null;
  outcome: string;
  triggers: string[] | null;
  items: string[] | null;
}
const runs = async (job: string): Promise<Run[]> =>
  (await getJson<{ runs: Run[] }>(`${served.url}/api/runs?job=${job}`)).runs;

async function jiraCall(
  site: JiraSandbox,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(`${site.url}${path}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${site.email}:${site.token}`).toString("base64")}`,
      "content-type": "application/json",
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/** The key and numeric id of the Jira copy named `summary` (under the issue `parent`). */
async function issueNamed(
  site: JiraSandbox,
  summary: string,
  parent?: string,
): Promise<{ key: string; id: string }> {
  const found = (await jiraCall(site, "POST", "/rest/api/3/search/jql", {
    jql: `project = ${site.projectKey}`,
    fields: ["summary", "parent"],
    maxResults: 100,
  })) as {
    issues: { id: string; key: string; fields: { summary: string; parent?: { key: string } } }[];
  };
  const issue = found.issues.find(
    (i) =>
      i.fields.summary === summary && (parent === undefined || i.fields.parent?.key === parent),
  );
  if (issue === undefined) throw new Error(`no Jira issue named ${summary}`);
  return { key: issue.key, id: issue.id };
}

/** The OPS issue with this numeric id, creating (unlinked) OPS issues until there is one. */
async function twinOf(id: string): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${ops.url}/rest/api/3/issue/${id}`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${ops.email}:${ops.token}`).toString("base64")}`,
      },
    });
    if (res.ok) return ((await res.json()) as { key: string }).key;
    await jiraCall(ops, "POST", "/rest/api/3/issue", {
      fields: { project: { key: "OPS" }, summary: `Filler ${i}`, issuetype: { name: "Story" } },
    });
  }
  throw new Error(`the OPS site has no issue ${id}`);
}

async function idle(): Promise<void> {
  await Promise.all([widgets.drainWebhooks(), ops.drainWebhooks()]);
  let last = "";
  let quietPolls = 0;
  await eventually(async () => {
    const { jobs } = await getJson<{ jobs: { running: boolean; pending: boolean }[] }>(
      `${served.url}/api/jobs`,
    );
    const counts = `${(await runs("ja")).length}/${(await runs("jb")).length}`;
    // Quiet for ten polls in a row: well past the debounce (0 ms) of any delivery just taken.
    const same = jobs.every((j) => !j.running && !j.pending) && counts === last;
    quietPolls = same ? quietPolls + 1 : 0;
    last = counts;
    return quietPolls >= 10 ? true : undefined;
  }, "both jobs idle");
}

let relay: WebhookRelay;

beforeAll(async () => {
  // The sandboxes deliver to a relay, told serve's URL once serve listens (on port 0).
  relay = await startWebhookRelay();
  const webhook = {
    url: `${relay.url}/webhooks/jira`,
    secret: SECRET,
    events: WORKLOG_EVENTS,
    retryDelaysMs: [200, 400, 800, 1600, 3200],
  };
  tinypm = await startReferenceServer({ generate: "stories=3,tasks=1,comments=0", seed: 5 });
  github = await startGithubSandbox({ rateLimits: "off" });
  widgets = await startJiraSandbox({ rateLimits: "off", webhook });
  ops = await startJiraSandbox({ rateLimits: "off", projectKey: "OPS", webhook });
  const config = writeConfig(tmp.dir, { tinypm, github, jira: widgets });
  // Worklogs are booked by the sandbox's admin (the API caller): map it to a tinyPM user.
  const users = join(tmp.dir, "users.yaml");
  writeFileSync(users, "users:\n  alice: acc-sandbox\n");
  editConfig(config, (c) => {
    c.users = users;
    c.targets.jira = { ...c.targets.jira!, webhookSecretEnv: "JIRA_HOOK_SECRET" };
    c.targets.ops = {
      type: "jira",
      baseUrl: ops.url,
      project: "OPS",
      emailEnv: "OPS_EMAIL",
      tokenEnv: "OPS_TOKEN",
      webhookSecretEnv: "JIRA_HOOK_SECRET",
    };
    const jr = c.jobs.find((j) => j.name === "jr")!;
    c.jobs = [
      { ...jr, name: "ja", schedule: { every: "1h" } },
      { ...jr, name: "jb", tinypmProject: 2, target: "ops", schedule: { every: "1h" } },
    ];
  });
  served = await startServe(
    config,
    {
      TINYPM_TOKEN: tinypm.token,
      GITHUB_TOKEN: github.token,
      JIRA_EMAIL: widgets.email,
      JIRA_TOKEN: widgets.token,
      OPS_EMAIL: ops.email,
      OPS_TOKEN: ops.token,
      JIRA_HOOK_SECRET: SECRET,
    },
    ["--debounce", "0"],
  );
  relay.forwardTo(served.url);
  for (const job of ["ja", "jb"])
    await eventually(async () => {
      const r = await runs(job);
      return r.at(-1)?.outcome === "ok" ? true : undefined;
    }, `the startup run of ${job}`);
  await idle();
});
afterAll(async () => {
  served.proc.kill("SIGTERM");
  await served.proc.done;
  await Promise.allSettled([
    tinypm.close(),
    widgets.close(),
    ops.close(),
    github.close(),
    relay.close(),
  ]);
  tmp.cleanup();
});

describe("serve routing Jira worklog deliveries by issue", () => {
  it("runs only the job whose project holds the worklog's issue, naming the issue by key", async () => {
    const story = tinypm.store.storiesOf(1)[0]!;
    const task = tinypm.store.tasksOf(story.id)[0]!;
    const copy = await issueNamed(widgets, task.name, (await issueNamed(widgets, story.name)).key);
    // The other site has an issue with the same numeric id: a delivery routed by id alone
    // would wake its job for the wrong issue.
    const twin = await twinOf(copy.id);
    expect(twin).toMatch(/^OPS-/);
    const before = { ja: (await runs("ja")).length, jb: (await runs("jb")).length };
    const earlier = new Set((await runs("ja")).map((x) => x.id));
    const activities = tinypm.store.activitiesOfTask(task.id).length;
    await jiraCall(widgets, "POST", `/rest/api/3/issue/${copy.key}/worklog`, {
      timeSpentSeconds: 1800,
      started: "2026-11-20T09:00:00.000+0000",
    });
    const run = await eventually(async () => {
      const r = await runs("ja");
      return r.find(
        (x) =>
          !earlier.has(x.id) && x.triggers?.includes("webhook") === true && x.finishedAt !== null,
      );
    }, "the webhook run of ja");
    expect(run.outcome).toBe("ok");
    expect(run.items).toEqual([copy.key]);
    await eventually(
      () => (tinypm.store.activitiesOfTask(task.id).length > activities ? true : undefined),
      "the worklog in tinyPM",
    );
    await idle();
    expect((await runs("ja")).length).toBe(before.ja + 1);
    expect((await runs("jb")).length).toBe(before.jb);
  });

  it("routes a worklog on an issue not linked yet to the job on its project only", async () => {
    const created = (await jiraCall(widgets, "POST", "/rest/api/3/issue", {
      fields: { project: { key: "WID" }, summary: "Unlinked", issuetype: { name: "Story" } },
    })) as { key: string };
    await idle();
    const before = { ja: (await runs("ja")).length, jb: (await runs("jb")).length };
    await jiraCall(widgets, "POST", `/rest/api/3/issue/${created.key}/worklog`, {
      timeSpentSeconds: 600,
      started: "2026-11-20T10:00:00.000+0000",
    });
    // The issue is on ja's project: ja runs for it (it is new there), jb does not.
    const run = await eventually(async () => {
      const r = await runs("ja");
      return r.find((x) => x.items?.includes(created.key) === true);
    }, "ja's run for the new issue");
    // It reached tinyPM through the worklog's delivery alone (the sites send no issue events).
    await eventually(
      () => (tinypm.store.storiesOf(1).some((st) => st.name === "Unlinked") ? true : undefined),
      "the new issue in tinyPM",
    );
    expect(run.outcome).not.toBe("failed");
    await idle();
    expect((await runs("ja")).length).toBe(before.ja + 1);
    expect((await runs("jb")).length).toBe(before.jb);
  });
});
