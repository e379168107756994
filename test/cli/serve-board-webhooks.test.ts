import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { graphql } from "@octokit/graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { startWebhookRelay, type WebhookRelay } from "../support/webhook-relay.js";
import { MAPPINGS, tempDir, writeConfig } from "./fixtures.js";
import { editConfig, eventually, getJson, startServe, type Served } from "./serve-support.js";

/**
 * Issue #33: `serve` takes `projects_v2_item` deliveries where GitHub sends them (an
 * organization's board): a person's edit on the board reaches tinyPM by a webhook run, with the
 * schedule an hour away.
 */
const SECRET = `hook-${randomUUID()}`;
const TITLE = "Team board";
let tinypm: ReferenceServer;
let github: GithubSandbox;
let jira: JiraSandbox;
let served: Served;
let relay: WebhookRelay;
const tmp = tempDir();

beforeAll(async () => {
  relay = await startWebhookRelay();
  tinypm = await startReferenceServer({ generate: "stories=2,tasks=0,comments=0", seed: 5 });
  github = await startGithubSandbox({
    rateLimits: "off",
    webhook: { url: `${relay.url}/webhooks/github`, secret: SECRET, retryDelaysMs: [200, 400] },
  });
  jira = await startJiraSandbox({ rateLimits: "off" });
  const config = writeConfig(tmp.dir, { tinypm, github, jira });
  editConfig(config, (c) => {
    Object.assign(c.targets.github!, {
      webhookSecretEnv: "GH_HOOK_SECRET",
      project: { owner: github.owner, title: TITLE },
    });
    c.jobs = c.jobs
      .filter((j) => j.name === "gh")
      .map((j) => ({
        ...j,
        mapping: join(MAPPINGS, "github-project.yaml"),
        schedule: { every: "1h" },
      }));
  });
  served = await startServe(config, {
    TINYPM_TOKEN: tinypm.token,
    GITHUB_TOKEN: github.token,
    JIRA_EMAIL: jira.email,
    JIRA_TOKEN: jira.token,
    GH_HOOK_SECRET: SECRET,
  });
  relay.forwardTo(served.url);
}, 60_000);
afterAll(async () => {
  served.proc.kill("SIGTERM");
  await served.proc.done;
  await Promise.allSettled([tinypm.close(), github.close(), jira.close(), relay.close()]);
  tmp.cleanup();
});

interface RunsAnswer {
  runs: { outcome: string; finishedAt: string | null; triggers: string[] | null }[];
}

describe("serve with an organization's Project board", () => {
  it("runs the job on a projects_v2_item delivery and brings the board's edit to tinyPM", async () => {
    // The startup run, and any run its own board writes' deliveries started, all finished.
    await eventually(async () => {
      const r = await getJson<RunsAnswer>(`${served.url}/api/runs`);
      const done =
        r.runs.some((x) => x.outcome === "ok") && r.runs.every((x) => x.finishedAt !== null);
      return done ? true : undefined;
    }, "the startup run");
    const gql = graphql.defaults({
      baseUrl: github.url,
      headers: { authorization: `token ${github.token}` },
    });
    const story = tinypm.store.storiesOf(1)[0]!;
    const board = await gql<{
      organization: {
        projectsV2: {
          nodes: {
            id: string;
            title: string;
            fields: { nodes: { id?: string; name?: string }[] };
            items: { nodes: { id: string; content: { title?: string } | null }[] };
          }[];
        };
      };
    }>(
      `query($o: String!) { organization(login: $o) { projectsV2(first: 10) { nodes { id title
        fields(first: 20) { nodes { ... on ProjectV2FieldCommon { id name } } }
        items(first: 100) { nodes { id content { ... on Issue { title } } } } } } } }`,
      { o: github.owner },
    );
    const project = board.organization.projectsV2.nodes.find((p) => p.title === TITLE);
    const field = project?.fields.nodes.find((f) => f.name === "Estimate");
    const item = project?.items.nodes.find((i) => i.content?.title === story.name);
    expect([project, field, item].every((x) => x !== undefined)).toBe(true);
    const runsBefore = (await getJson<RunsAnswer>(`${served.url}/api/runs`)).runs.length;
    const estimate = (story.estimatedEffort ?? 0) + 7;
    await gql(
      `mutation($p: ID!, $i: ID!, $f: ID!, $n: Float!) { updateProjectV2ItemFieldValue(input: {
        projectId: $p, itemId: $i, fieldId: $f, value: { number: $n } }) { projectV2Item { id } } }`,
      { p: project?.id, i: item?.id, f: field?.id, n: estimate },
    );
    await eventually(
      () => (tinypm.store.story(story.id)?.estimatedEffort === estimate ? true : undefined),
      "the board's estimate in tinyPM",
    );
    // The run that brought it may still be going: its triggers are listed once it has finished.
    const runs = await eventually(async () => {
      const r = (await getJson<RunsAnswer>(`${served.url}/api/runs`)).runs;
      return r.length > runsBefore && r.every((x) => x.finishedAt !== null) ? r : undefined;
    }, "the webhook run finished");
    expect(runs.some((r) => r.triggers?.includes("webhook") === true)).toBe(true);
  }, 120_000);
});
