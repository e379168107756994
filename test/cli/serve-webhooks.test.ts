import { randomUUID } from "node:crypto";
import type { EmitterWebhookEvent } from "@octokit/webhooks";
import { Webhooks } from "@octokit/webhooks";
import { createServer, type IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../../src/reference-server/index.js";
import { startGithubSandbox, type GithubSandbox } from "../../src/sandboxes/github/index.js";
import { startJiraSandbox } from "../../src/sandboxes/jira/index.js";
import { startWebhookRelay, type WebhookRelay } from "../support/webhook-relay.js";
import { tempDir, writeConfig } from "./fixtures.js";
import { editConfig, eventually, getJson, startServe, type Served } from "./serve-support.js";

const SECRET = `hook-${randomUUID()}`;
let tinypm: ReferenceServer;
let github: GithubSandbox;
let served: Served;
const tmp = tempDir();
const closeJira: (() => Promise<void>)[] = [];
let relay: WebhookRelay;

beforeAll(async () => {
  // The sandbox must know serve's URL and serve the sandbox's: the sandbox delivers to a relay,
  // told serve's URL once serve listens (on port 0).
  relay = await startWebhookRelay();
  tinypm = await startReferenceServer({ generate: "stories=2,tasks=1,comments=0", seed: 5 });
  github = await startGithubSandbox({
    rateLimits: "off",
    webhook: {
      url: `${relay.url}/webhooks/github`,
      secret: SECRET,
      retryDelaysMs: [200, 400, 800, 1600],
    },
  });
  const jira = await startJiraSandbox({ rateLimits: "off" });
  closeJira.push(() => jira.close());
  const config = writeConfig(tmp.dir, { tinypm, github, jira });
  editConfig(config, (c) => {
    c.targets.github = { ...c.targets.github!, webhookSecretEnv: "GH_HOOK_SECRET" };
    c.jobs = c.jobs
      .filter((j) => j.name === "gh")
      .map((j) => ({ ...j, schedule: { every: "1h" } }));
  });
  const proc = await startServe(config, {
    TINYPM_TOKEN: tinypm.token,
    GITHUB_TOKEN: github.token,
    JIRA_EMAIL: jira.email,
    JIRA_TOKEN: jira.token,
    GH_HOOK_SECRET: SECRET,
  });
  relay.forwardTo(proc.url);
  served = proc;
});
afterAll(async () => {
  served.proc.kill("SIGTERM");
  await served.proc.done;
  await Promise.allSettled([
    tinypm.close(),
    github.close(),
    relay.close(),
    ...closeJira.map((f) => f()),
  ]);
  tmp.cleanup();
});

interface RunsAnswer {
  runs: {
    outcome: string;
    triggers: string[] | null;
    items: string[] | null;
    finishedAt: string | null;
  }[];
}

describe("serve with the GitHub sandbox delivering webhooks", () => {
  it("brings an edit made on GitHub to tinyPM, and the run shows in /api/runs", async () => {
    const startup = await eventually(async () => {
      const r = await getJson<RunsAnswer>(`${served.url}/api/runs`);
      return r.runs[0]?.outcome === "ok" ? r.runs[0] : undefined;
    }, "the startup run");
    // An issue edit stamped within a second of the tool's own write to that issue is taken for
    // its echo and left to the next run (docs/serve.md, own-writes.ts): a person edits later.
    const after = Date.parse(startup.finishedAt ?? "") + 2_000;
    await eventually(() => (Date.now() > after ? true : undefined), "two seconds after the run");
    const story = tinypm.store.storiesOf(1)[0]!;
    const list = await fetch(
      `${github.url}/repos/${github.owner}/${github.repo}/issues?state=all`,
      {
        headers: { authorization: `token ${github.token}` },
      },
    );
    const issue = ((await list.json()) as { number: number; title: string }[]).find(
      (i) => i.title === story.name,
    )!;
    const title = `${story.name} — renamed on GitHub`;
    const res = await fetch(
      `${github.url}/repos/${github.owner}/${github.repo}/issues/${issue.number}`,
      {
        method: "PATCH",
        headers: { authorization: `token ${github.token}`, "content-type": "application/json" },
        body: JSON.stringify({ title }),
      },
    );
    expect(res.status).toBe(200);
    await eventually(
      () => (tinypm.store.story(story.id)?.name === title ? true : undefined),
      "the title in tinyPM",
    );
    // The delivery for this edit names the issue; a run that coalesced it with a scheduled
    // trigger covers the whole job (items null), which includes it too.
    const named = (x: RunsAnswer["runs"][number]): boolean =>
      x.triggers?.includes("webhook") === true &&
      x.outcome === "ok" &&
      (x.items === null || x.items.includes(String(issue.number)));
    const runs = await eventually(async () => {
      const r = await getJson<RunsAnswer>(`${served.url}/api/runs`);
      return r.runs.some(named) ? r : undefined;
    }, "the webhook run in /api/runs");
    expect(runs.runs.filter(named).length).toBeGreaterThan(0);
  });

  it("brings a comment made on GitHub to tinyPM in a run for that issue", async () => {
    const story = tinypm.store.storiesOf(1)[1]!;
    const list = await fetch(
      `${github.url}/repos/${github.owner}/${github.repo}/issues?state=all`,
      { headers: { authorization: `token ${github.token}` } },
    );
    const issue = ((await list.json()) as { number: number; title: string }[]).find(
      (i) => i.title === story.name,
    )!;
    const text = `Commented on GitHub ${randomUUID()}`;
    const res = await fetch(
      `${github.url}/repos/${github.owner}/${github.repo}/issues/${issue.number}/comments`,
      {
        method: "POST",
        headers: { authorization: `token ${github.token}`, "content-type": "application/json" },
        body: JSON.stringify({ body: text }),
      },
    );
    expect(res.status).toBe(201);
    await eventually(
      () =>
        tinypm.store.commentsOf("story", story.id).some((c) => c.body.includes(text))
          ? true
          : undefined,
      "the comment in tinyPM",
    );
    const runs = await eventually(async () => {
      const r = await getJson<RunsAnswer>(`${served.url}/api/runs`);
      return r.runs.some((x) => x.items?.includes(String(issue.number)) === true) ? r : undefined;
    }, "the comment's run in /api/runs");
    expect(runs.runs.find((x) => x.items?.includes(String(issue.number)) === true)?.outcome).toBe(
      "ok",
    );
  });
});

describe("the sandbox's deliveries", () => {
  it("are signed, shaped like GitHub's payload types, and retried with the same delivery id after a failure", async () => {
    const received: { headers: IncomingMessage["headers"]; body: string }[] = [];
    let failFirst = true;
    const receiver = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8").on("data", (d: string) => (body += d));
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        if (failFirst) {
          failFirst = false;
          res.writeHead(503).end();
        } else res.writeHead(202).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const address = receiver.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    const sandbox = await startGithubSandbox({
      rateLimits: "off",
      webhook: { url: `http://127.0.0.1:${port}/`, secret: "s", retryDelaysMs: [50] },
    });
    try {
      const created = await fetch(`${sandbox.url}/repos/${sandbox.owner}/${sandbox.repo}/issues`, {
        method: "POST",
        headers: { authorization: `token ${sandbox.token}`, "content-type": "application/json" },
        body: JSON.stringify({ title: "A", body: "b" }),
      });
      const { number } = (await created.json()) as { number: number };
      await fetch(
        `${sandbox.url}/repos/${sandbox.owner}/${sandbox.repo}/issues/${number}/comments`,
        {
          method: "POST",
          headers: { authorization: `token ${sandbox.token}`, "content-type": "application/json" },
          body: JSON.stringify({ body: "hello" }),
        },
      );
      await sandbox.drainWebhooks();
      expect(received).toHaveLength(3);
      const [first, retry, comment] = received;
      expect(retry!.headers["x-github-delivery"]).toBe(first!.headers["x-github-delivery"]);
      expect(retry!.headers["x-github-event"]).toBe("issues");
      expect(retry!.headers["user-agent"]).toMatch(/^GitHub-Hookshot\//);
      const verifier = new Webhooks({ secret: "s" });
      expect(
        await verifier.verify(retry!.body, String(retry!.headers["x-hub-signature-256"])),
      ).toBe(true);
      // The payloads type-check against @octokit/webhooks' published payload types.
      const opened = JSON.parse(retry!.body) as EmitterWebhookEvent<"issues.opened">["payload"];
      expect(opened.action).toBe("opened");
      expect(opened.issue.number).toBe(number);
      expect(opened.repository.full_name).toBe(`${sandbox.owner}/${sandbox.repo}`);
      expect(opened.sender.login).toBe("alice");
      const c = JSON.parse(
        comment!.body,
      ) as EmitterWebhookEvent<"issue_comment.created">["payload"];
      expect(comment!.headers["x-github-event"]).toBe("issue_comment");
      expect(c.comment.body).toBe("hello");
      expect(c.issue.number).toBe(number);
    } finally {
      await sandbox.close();
      await new Promise<void>((resolve) =>
        receiver.close(() => {
          resolve();
        }),
      );
    }
  });
});
