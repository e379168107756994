import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { startWebhookRelay, type WebhookRelay } from "../support/webhook-relay.js";
import { tempDir, writeConfig } from "./fixtures.js";
import { editConfig, eventually, getJson, startServe, type Served } from "./serve-support.js";

/**
 * Issue 32: every update serve made on GitHub came back as webhook deliveries, each starting a
 * second run (`1 unchanged`). Deliveries that echo the service's own writes start no run; an
 * edit made afterwards with the very same account does.
 */
const SECRET = `hook-${randomUUID()}`;
let tinypm: ReferenceServer;
let github: GithubSandbox;
let jira: JiraSandbox;
let relay: WebhookRelay;
let served: Served;
/** The sandbox's clock runs this far ahead of the real one (a person's edit, later on). */
let ahead = 0;
const tmp = tempDir();

beforeAll(async () => {
  relay = await startWebhookRelay();
  tinypm = await startReferenceServer({ generate: "stories=2,tasks=1,comments=0", seed: 5 });
  github = await startGithubSandbox({
    rateLimits: "off",
    now: () => Date.now() + ahead,
    webhook: { url: `${relay.url}/webhooks/github`, secret: SECRET, retryDelaysMs: [200, 400] },
  });
  jira = await startJiraSandbox({ rateLimits: "off" });
  const config = writeConfig(tmp.dir, { tinypm, github, jira });
  editConfig(config, (c) => {
    c.targets.github = { ...c.targets.github!, webhookSecretEnv: "GH_HOOK_SECRET" };
    c.jobs = c.jobs
      .filter((j) => j.name === "gh")
      .map((j) => ({ ...j, schedule: { every: "1h" } }));
  });
  served = await startServe(config, {
    TINYPM_TOKEN: tinypm.token,
    GITHUB_TOKEN: github.token,
    JIRA_EMAIL: jira.email,
    JIRA_TOKEN: jira.token,
    GH_HOOK_SECRET: SECRET,
  });
  relay.forwardTo(served.url);
});
afterAll(async () => {
  served.proc.kill("SIGTERM");
  await served.proc.done;
  await Promise.allSettled([tinypm.close(), github.close(), jira.close(), relay.close()]);
  tmp.cleanup();
});

interface RunsAnswer {
  runs: { outcome: string; triggers: string[] | null; items: string[] | null }[];
}
const runs = async (): Promise<RunsAnswer["runs"]> =>
  (await getJson<RunsAnswer>(`${served.url}/api/runs`)).runs;

describe("serve and the echoes of its own writes", () => {
  it("starts no run for them, and one for a later edit by the same account", async () => {
    await eventually(
      async () => ((await runs()).some((r) => r.outcome === "ok") ? true : undefined),
      "the startup run",
    );
    const story = tinypm.store.storiesOf(1)[0]!;
    const list = await fetch(`${github.url}/repos/${github.owner}/${github.repo}/issues`, {
      headers: { authorization: `token ${github.token}` },
    });
    const issue = ((await list.json()) as { number: number; title: string }[]).find(
      (i) => i.title === story.name,
    )!;
    const number = String(issue.number);
    // An edit in tinyPM, brought to GitHub by "Sync now": the sandbox delivers the update.
    const { id, ...input } = story;
    tinypm.store.replaceStory(id, { ...input, name: `${story.name} — renamed in tinyPM` });
    const res = await fetch(`${served.url}/api/jobs/gh/sync`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(202);
    await eventually(() => {
      const log = served.proc.output().stderr + served.proc.output().stdout;
      return new RegExp(
        `webhook deliveries for items? [^"]*\\b${number}\\b[^"]* echo this service's own writes`,
      ).test(log)
        ? true
        : undefined;
    }, "the echo noted in the log");
    const named = (r: RunsAnswer["runs"][number]): boolean =>
      r.triggers?.includes("webhook") === true && r.items?.includes(number) === true;
    expect((await runs()).filter(named)).toEqual([]);

    // The same account edits the issue a minute later: that is a person's change, and runs.
    ahead = 60_000;
    const title = `${story.name} — renamed on GitHub`;
    const patch = await fetch(
      `${github.url}/repos/${github.owner}/${github.repo}/issues/${number}`,
      {
        method: "PATCH",
        headers: { authorization: `token ${github.token}`, "content-type": "application/json" },
        body: JSON.stringify({ title }),
      },
    );
    expect(patch.status).toBe(200);
    await eventually(
      () => (tinypm.store.story(id)?.name === title ? true : undefined),
      "the GitHub edit in tinyPM",
    );
    const after = await eventually(
      async () => ((await runs()).some((r) => named(r) && r.outcome === "ok") ? true : undefined),
      "the webhook run for the person's edit",
    );
    expect(after).toBe(true);
  });
});
