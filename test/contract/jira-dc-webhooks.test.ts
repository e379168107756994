/**
 * Jira Data Center webhooks, sandbox to serve's intake: Jira 10 sends its payloads in DC's
 * shapes (REST v2 links, wiki text, users by name/key) and names no
 * `X-Atlassian-Webhook-Identifier`; serve still verifies the signature, routes the delivery to
 * the job on the issue's project by key, and gives it an id its retries share.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServeJob } from "../../src/serve/types.js";
import { createJiraWebhooks, dataCenterDeliveryId } from "../../src/serve/webhook-jira.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.js";

const SECRET = "dc-webhook-secret";

describe("Jira Data Center webhooks", () => {
  let sandbox: JiraSandbox;
  let hook: WebhookReceiver;
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${sandbox.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${sandbox.token}`, "content-type": "application/json" },
    });
  beforeAll(async () => {
    hook = await startWebhookReceiver([], "/webhooks/jira");
    sandbox = await startJiraSandbox({
      deployment: "datacenter",
      webhook: { url: hook.url, secret: SECRET, retryDelaysMs: [] },
    });
  });
  afterAll(async () => {
    await sandbox.close();
    await hook.close();
  });

  const job = (deployment: "cloud" | "datacenter"): ServeJob => ({
    name: `jr-${deployment}`,
    schedule: undefined,
    target: { name: "jira", type: "jira", project: "WID", webhookSecret: SECRET, deployment },
  });

  it("delivers DC-shaped payloads that serve routes to the job by issue key", async () => {
    const created = await call("/rest/api/2/issue", {
      method: "POST",
      body: JSON.stringify({
        fields: {
          project: { key: "WID" },
          issuetype: { name: "Story" },
          summary: "Hooked",
          description: "*bold* {{code_name}}",
          assignee: { name: "alice" },
        },
      }),
    });
    const { key } = (await created.json()) as { key: string };
    await call(`/rest/api/2/issue/${key}/comment`, {
      method: "POST",
      body: JSON.stringify({ body: "ask [~bob]" }),
    });
    await sandbox.drainWebhooks();
    const events = hook.got.map((g) => JSON.parse(g.body) as Record<string, unknown>);
    // The comment moves the issue's updated time too: an issue_updated follows, as on Cloud.
    expect(events.map((e) => e.webhookEvent)).toEqual([
      "jira:issue_created",
      "comment_created",
      "jira:issue_updated",
    ]);
    const [issueEvent, commentEvent] = events;
    expect(issueEvent).toMatchObject({
      webhookEvent: "jira:issue_created",
      user: { name: "sandbox", key: "JIRAUSER10000" },
      issue: {
        key,
        self: expect.stringContaining("/rest/api/2/issue/") as unknown,
        fields: {
          description: "*bold* {{code_name}}",
          assignee: { name: "alice" },
        },
      },
    });
    expect(JSON.stringify(issueEvent)).not.toContain("accountId");
    expect(commentEvent).toMatchObject({
      webhookEvent: "comment_created",
      comment: { body: "ask [~bob]", author: { name: "sandbox" } },
    });
    for (const g of hook.got) {
      expect(g.headers["x-atlassian-webhook-identifier"]).toBeUndefined();
      expect(g.headers["x-hub-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    }

    const first = hook.got[0];
    if (first === undefined) throw new Error("no delivery");
    const headers = { "x-hub-signature": String(first.headers["x-hub-signature"]) };
    const dc = await createJiraWebhooks([job("datacenter")]).judge({ body: first.body, headers });
    expect(dc).toMatchObject({
      status: 202,
      outcome: "accepted",
      run: {
        jobs: ["jr-datacenter"],
        items: new Set([key]),
        deliveryId: dataCenterDeliveryId(first.body),
      },
    });
    // Two events are told apart; Cloud deliveries always name their id.
    expect(dataCenterDeliveryId(first.body)).not.toBe(
      dataCenterDeliveryId(hook.got[1]?.body ?? ""),
    );
    const cloud = await createJiraWebhooks([job("cloud")]).judge({ body: first.body, headers });
    expect(cloud).toMatchObject({ status: 400, outcome: "rejected" });
  });
});
