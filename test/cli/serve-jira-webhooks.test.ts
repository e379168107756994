import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import type { ServerStats } from "../../src/server-kit/stats.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { jiraSignature } from "../../src/serve/webhook-jira.js";
import { startWebhookRelay, type WebhookRelay } from "../support/webhook-relay.js";
import { tempDir, writeConfig } from "./fixtures.js";
import {
  editConfig,
  eventually,
  getJson,
  parseMetrics,
  startServe,
  type Served,
} from "./serve-support.js";

const SECRET = `jira-hook-${randomUUID()}`;
const STORIES = 20;
let tinypm: ReferenceServer;
let jira: JiraSandbox;
let github: GithubSandbox;
let served: Served;
const tmp = tempDir();

interface Run {
  id: string;
  outcome: string;
  triggers: string[] | null;
  items: string[] | null;
  finishedAt: string | null;
}
const runs = async (): Promise<Run[]> =>
  (await getJson<{ runs: Run[] }>(`${served.url}/api/runs?job=jr`)).runs;

const auth = (): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${jira.email}:${jira.token}`).toString("base64")}`,
  "content-type": "application/json",
});
async function jiraCall(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${jira.url}${path}`, {
    method,
    headers: auth(),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/** The Jira key of a tinyPM story's copy (its summary is the story's name). */
async function keyOf(name: string): Promise<string> {
  const found = (await jiraCall("POST", "/rest/api/3/search/jql", {
    jql: "project = WID",
    fields: ["summary"],
    maxResults: 100,
  })) as { issues: { key: string; fields: { summary: string } }[] };
  const issue = found.issues.find((i) => i.fields.summary === name);
  if (issue === undefined) throw new Error(`no Jira issue named ${name}`);
  return issue.key;
}

/** Requests made to each server between two snapshots, by route. */
function routesBetween(a: ServerStats, b: ServerStats): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [route, n] of Object.entries(b.byRoute)) {
    const d = n - (a.byRoute[route] ?? 0);
    if (d > 0) out[route] = d;
  }
  return out;
}

/** Waits for every delivery the sandbox queued and for the runs they asked for. */
async function settle(): Promise<void> {
  await jira.drainWebhooks();
  let last = -1;
  await eventually(async () => {
    const jobs = await getJson<{ jobs: { name: string; running: boolean; pending: boolean }[] }>(
      `${served.url}/api/jobs`,
    );
    const jr = jobs.jobs.find((j) => j.name === "jr");
    const count = (await runs()).length;
    const idle = jr !== undefined && !jr.running && !jr.pending && count === last;
    last = count;
    return idle ? true : undefined;
  }, "the runs asked for by the deliveries");
}

let relay: WebhookRelay;

beforeAll(async () => {
  // The sandbox delivers to a relay, told serve's URL once serve listens (on port 0).
  relay = await startWebhookRelay();
  tinypm = await startReferenceServer({
    generate: `stories=${STORIES},tasks=1,comments=0`,
    seed: 11,
  });
  github = await startGithubSandbox({ rateLimits: "off" });
  jira = await startJiraSandbox({
    rateLimits: "off",
    webhook: {
      url: `${relay.url}/webhooks/jira`,
      secret: SECRET,
      retryDelaysMs: [200, 400, 800, 1600, 3200],
    },
  });
  const config = writeConfig(tmp.dir, { tinypm, github, jira });
  editConfig(config, (c) => {
    c.targets.jira = { ...c.targets.jira!, webhookSecretEnv: "JIRA_HOOK_SECRET" };
    c.jobs = c.jobs
      .filter((j) => j.name === "jr")
      .map((j) => ({ ...j, schedule: { every: "1h" } }));
  });
  served = await startServe(config, {
    TINYPM_TOKEN: tinypm.token,
    GITHUB_TOKEN: github.token,
    JIRA_EMAIL: jira.email,
    JIRA_TOKEN: jira.token,
    JIRA_HOOK_SECRET: SECRET,
  });
  relay.forwardTo(served.url);
  await eventually(async () => {
    const r = await runs();
    return r.at(-1)?.outcome === "ok" ? true : undefined;
  }, "the startup run");
  await settle();
});
afterAll(async () => {
  served.proc.kill("SIGTERM");
  await served.proc.done;
  await Promise.allSettled([tinypm.close(), jira.close(), github.close(), relay.close()]);
  tmp.cleanup();
});

describe("serve with the Jira sandbox delivering webhooks", () => {
  it("brings an edit made on Jira to tinyPM in a run that reads only that issue", async () => {
    const story = tinypm.store.storiesOf(1)[0]!;
    const key = await keyOf(story.name);
    const before = { tinypm: tinypm.stats(), jira: jira.stats() };
    const summary = `${story.name} (edited on Jira)`;
    await jiraCall("PUT", `/rest/api/3/issue/${key}`, { fields: { summary } });
    await eventually(
      () => (tinypm.store.story(story.id)?.name === summary ? true : undefined),
      "the summary in tinyPM",
    );
    const run = await eventually(async () => {
      const r = await runs();
      return r.find((x) => x.triggers?.includes("webhook") === true && x.items?.includes(key));
    }, "the webhook run in /api/runs");
    expect(run.outcome).toBe("ok");
    expect(run.items).toEqual([key]);
    await settle();
    // Targeted: no listing of the tinyPM project nor a JQL search of the Jira project, and
    // fewer tinyPM requests than the project has stories (a whole read reads each one).
    const tinypmRoutes = routesBetween(before.tinypm, tinypm.stats());
    const jiraRoutes = routesBetween(before.jira, jira.stats());
    expect(Object.keys(tinypmRoutes).filter((r) => r.includes("userstories"))).toEqual([]);
    // (User lookups such as /user/assignable/search are not issue searches.)
    expect(Object.keys(jiraRoutes).filter((r) => /\/rest\/api\/\w+\/search/.test(r))).toEqual([]);
    const tinypmRequests = Object.values(tinypmRoutes).reduce((a, b) => a + b, 0);
    expect(tinypmRequests).toBeGreaterThan(0);
    expect(tinypmRequests).toBeLessThan(STORIES);
  });

  it("brings a comment added on Jira to tinyPM", async () => {
    const story = tinypm.store.storiesOf(1)[1]!;
    const key = await keyOf(story.name);
    const text = `A comment made on Jira ${randomUUID()}`;
    await jiraCall("POST", `/rest/api/3/issue/${key}/comment`, {
      body: {
        type: "doc",
        version: 1,
        content: [{ type: "paragraph", content: [{ type: "text", text }] }],
      },
    });
    await eventually(
      () =>
        tinypm.store.commentsOf("story", story.id).some((c) => c.body.includes(text))
          ? true
          : undefined,
      "the comment in tinyPM",
    );
    const r = await runs();
    expect(r.some((x) => x.items?.includes(key) === true && x.outcome === "ok")).toBe(true);
    await settle();
  });

  it("closes the tinyPM story of an issue deleted on Jira (onDelete close)", async () => {
    const story = tinypm.store.storiesOf(1)[2]!;
    const key = await keyOf(story.name);
    await jiraCall("DELETE", `/rest/api/3/issue/${key}?deleteSubtasks=true`);
    await eventually(
      () => (tinypm.store.story(story.id)?.acceptanceStatus === "REJECTED" ? true : undefined),
      "the story rejected in tinyPM",
    );
    const run = await eventually(async () => {
      const r = await runs();
      return r.find((x) => x.items?.includes(key) === true && x.outcome === "ok");
    }, "the deletion's run");
    expect(run.triggers).toContain("webhook");
    await settle();
  });

  it("refuses a delivery with a bad signature (401) and runs nothing", async () => {
    const count = (await runs()).length;
    const body = JSON.stringify({
      timestamp: Date.now(),
      webhookEvent: "jira:issue_updated",
      issue: { key: "WID-1", fields: { project: { key: "WID" } } },
    });
    const post = (signature: string | undefined): Promise<Response> =>
      fetch(`${served.url}/webhooks/jira`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-atlassian-webhook-identifier": randomUUID(),
          ...(signature === undefined ? {} : { "x-hub-signature": signature }),
        },
        body,
      });
    expect((await post(jiraSignature(body, "not-the-secret"))).status).toBe(401);
    expect((await post(undefined)).status).toBe(401);
    expect((await post(jiraSignature(`${body} `, SECRET))).status).toBe(401);
    const metrics = parseMetrics(await (await fetch(`${served.url}/metrics`)).text());
    expect(
      metrics.get('tinypm_sync_webhook_deliveries_total{source="jira",outcome="rejected"}'),
    ).toBe(3);
    // Well past the debounce (100 ms): a refused delivery never asks for a run.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await runs()).length).toBe(count);
  });
});
