import { createHmac } from "node:crypto";
import type { Version3Client } from "jira.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import {
  startWebhookReceiver,
  type ReceivedDelivery as Received,
  type WebhookReceiver,
} from "../support/webhook-receiver.js";
import { authedFetch, doc, jiraClient, story } from "./jira-sandbox-helpers.js";

// The payload shapes Jira Cloud documents for webhooks ("Webhooks", Jira Cloud platform).
const User = z.looseObject({ accountId: z.string(), displayName: z.string() });
const Issue = z.looseObject({
  id: z.string(),
  key: z.string().regex(/^WID-\d+$/),
  self: z.string(),
  fields: z.looseObject({
    summary: z.string(),
    project: z.looseObject({ key: z.literal("WID") }),
    status: z.looseObject({ name: z.string() }),
    issuetype: z.looseObject({ name: z.string() }),
  }),
});
const ChangelogItem = z.strictObject({
  field: z.string(),
  fieldtype: z.enum(["jira", "custom"]),
  fieldId: z.string(),
  from: z.string().nullable(),
  fromString: z.string().nullable(),
  to: z.string().nullable(),
  toString: z.string().nullable(),
});
const IssueEvent = z.looseObject({
  timestamp: z.number(),
  webhookEvent: z.enum(["jira:issue_created", "jira:issue_updated", "jira:issue_deleted"]),
  issue_event_type_name: z.string(),
  user: User,
  issue: Issue,
  changelog: z.object({ id: z.string(), items: z.array(ChangelogItem).min(1) }).optional(),
});
const CommentEvent = z.looseObject({
  timestamp: z.number(),
  webhookEvent: z.enum(["comment_created", "comment_updated", "comment_deleted"]),
  comment: z.looseObject({ id: z.string(), self: z.string(), body: z.unknown(), author: User }),
  issue: Issue,
});
const WorklogEvent = z.looseObject({
  timestamp: z.number(),
  webhookEvent: z.enum(["worklog_created", "worklog_updated", "worklog_deleted"]),
  worklog: z.looseObject({ id: z.string(), issueId: z.string(), timeSpentSeconds: z.number() }),
});
const SprintEvent = z.looseObject({
  timestamp: z.number(),
  webhookEvent: z.enum([
    "sprint_created",
    "sprint_updated",
    "sprint_deleted",
    "sprint_started",
    "sprint_closed",
  ]),
  sprint: z.looseObject({ id: z.number(), name: z.string(), state: z.string() }),
});
const Payload = z.union([IssueEvent, CommentEvent, WorklogEvent, SprintEvent]);

const SECRET = "jira-hook-secret";
const sign = (body: string): string =>
  `sha256=${createHmac("sha256", SECRET).update(body, "utf8").digest("hex")}`;

let sandbox: JiraSandbox | undefined;
let hook: WebhookReceiver | undefined;
afterEach(async () => {
  await sandbox?.close();
  await hook?.close();
  sandbox = undefined;
  hook = undefined;
});

async function start(answers: number[] = [], retryDelaysMs = [20, 20, 20, 20, 20]) {
  hook = await startWebhookReceiver(answers, "/webhooks/jira");
  sandbox = await startJiraSandbox({
    webhook: { url: hook.url, secret: SECRET, retryDelaysMs },
  });
  return { s: sandbox, client: jiraClient(sandbox), got: hook.got };
}

const parsed = (got: readonly Received[]) =>
  got.map(
    (r) => Payload.parse(JSON.parse(r.body)) as { webhookEvent: string } & Record<string, unknown>,
  );

describe("the Jira sandbox's webhooks", () => {
  it("sends a signed, documented-shape delivery for every change made through the API", async () => {
    const { s, client, got } = await start();
    const { key } = await client.issues.createIssue(story("First"));
    await client.issues.editIssue({
      issueIdOrKey: key,
      fields: { summary: "First, renamed", labels: ["b", "a"] },
    });
    await client.issues.doTransition({ issueIdOrKey: key, transition: { id: "11" } });
    const c = await client.issueComments.addComment({ issueIdOrKey: key, comment: doc("hi") });
    await client.issueComments.updateComment({
      issueIdOrKey: key,
      id: c.id!,
      body: doc("hello"),
    });
    await client.issueComments.deleteComment({ issueIdOrKey: key, id: c.id! });
    await client.issueWorklogs.addWorklog({
      issueIdOrKey: key,
      timeSpentSeconds: 3600,
      started: "2026-01-05T09:00:00.000+0000",
    });
    const sprint = await authedFetch(s, "/rest/agile/1.0/sprint", {
      method: "POST",
      body: JSON.stringify({ name: "S1", originBoardId: 1 }),
    });
    expect(sprint.status).toBe(201);
    await client.issues.deleteIssue({ issueIdOrKey: key });
    await s.drainWebhooks();

    for (const r of got) {
      expect(r.headers["x-hub-signature"]).toBe(sign(r.body));
      expect(r.headers["x-atlassian-webhook-identifier"]).toMatch(/\S/);
      expect(r.headers["x-atlassian-webhook-flow"]).toBe("Primary");
      expect(r.headers["x-atlassian-webhook-retry"]).toBeUndefined();
      expect(r.headers["content-type"]).toMatch(/^application\/json/);
    }
    const ids = new Set(got.map((r) => r.headers["x-atlassian-webhook-identifier"]));
    expect(ids.size).toBe(got.length);
    const events = parsed(got);
    expect(events.map((e) => [e.webhookEvent, e.issue_event_type_name])).toEqual([
      ["jira:issue_created", "issue_created"],
      ["jira:issue_updated", "issue_updated"],
      ["jira:issue_updated", "issue_generic"],
      ["comment_created", undefined],
      ["jira:issue_updated", "issue_commented"],
      ["comment_updated", undefined],
      ["jira:issue_updated", "issue_comment_edited"],
      ["comment_deleted", undefined],
      ["jira:issue_updated", "issue_comment_deleted"],
      ["worklog_created", undefined],
      ["jira:issue_updated", "issue_work_logged"],
      ["sprint_created", undefined],
      ["jira:issue_deleted", "issue_deleted"],
    ]);
    const edit = events[1] as z.infer<typeof IssueEvent>;
    expect(edit.issue.key).toBe(key);
    expect(edit.changelog?.items).toEqual([
      {
        field: "summary",
        fieldtype: "jira",
        fieldId: "summary",
        from: null,
        fromString: "First",
        to: null,
        toString: "First, renamed",
      },
      {
        field: "labels",
        fieldtype: "jira",
        fieldId: "labels",
        from: null,
        fromString: null,
        to: null,
        toString: "a b",
      },
    ]);
    const moved = events[2] as z.infer<typeof IssueEvent>;
    expect(moved.changelog?.items.map((i) => [i.field, i.fromString, i.toString])).toEqual([
      ["status", "To Do", "In Progress"],
    ]);
    const comment = events[5] as z.infer<typeof CommentEvent>;
    expect(comment.comment.id).toBe(c.id);
    expect(comment.comment.body).toEqual(doc("hello"));
    const logged = events[10] as z.infer<typeof IssueEvent>;
    expect(logged.changelog?.items.map((i) => [i.field, i.to, i.toString])).toEqual([
      ["timespent", null, "3600"],
    ]);
    expect((events[12] as z.infer<typeof IssueEvent>).issue.key).toBe(key);
  });

  it("sends a deleted issue's comments as secondary comment_deleted deliveries", async () => {
    const { s, client, got } = await start();
    const { key } = await client.issues.createIssue(story("Doomed"));
    await client.issueComments.addComment({ issueIdOrKey: key, comment: doc("one") });
    await s.drainWebhooks();
    got.length = 0;
    await client.issues.deleteIssue({ issueIdOrKey: key });
    await s.drainWebhooks();
    expect(parsed(got).map((e) => e.webhookEvent)).toEqual([
      "jira:issue_deleted",
      "comment_deleted",
    ]);
    expect(got.map((r) => r.headers["x-atlassian-webhook-flow"])).toEqual(["Primary", "Secondary"]);
  });

  it("sends no delivery for a refused write or a read", async () => {
    const { s, client, got } = await start();
    const bad = await authedFetch(s, "/rest/api/3/issue", {
      method: "POST",
      body: JSON.stringify({ fields: { project: { key: "WID" } } }),
    });
    expect(bad.status).toBe(400);
    await client.issueSearch.searchForIssuesUsingJqlEnhancedSearchPost({ jql: "project = WID" });
    await s.drainWebhooks();
    expect(got).toEqual([]);
  });

  it("retries on 5xx, 429 and 408 like Jira Cloud (same identifier, retry count), not on other 4xx", async () => {
    const { s, client, got } = await start([503, 429, 408, 200, 400]);
    await client.issues.createIssue(story("Retried"));
    await client.issues.createIssue(story("Refused"));
    await s.drainWebhooks();
    expect(got).toHaveLength(5);
    const first = got[0]!.headers["x-atlassian-webhook-identifier"];
    expect(got.slice(0, 4).map((r) => r.headers["x-atlassian-webhook-identifier"])).toEqual([
      first,
      first,
      first,
      first,
    ]);
    expect(got.slice(0, 4).map((r) => r.headers["x-atlassian-webhook-retry"])).toEqual([
      undefined,
      "1",
      "2",
      "3",
    ]);
    expect(got[4]!.headers["x-atlassian-webhook-identifier"]).not.toBe(first);
    expect(got[0]!.body).toBe(got[3]!.body);
  });

  it("gives a delivery up after five retries", async () => {
    const { s, client, got } = await start([500, 500, 500, 500, 500, 500, 500]);
    await client.issues.createIssue(story("Never"));
    await s.drainWebhooks();
    expect(got).toHaveLength(6);
  });

  it("reports sprint starts and issues moved into a sprint", async () => {
    const { s, got } = await start();
    const client: Version3Client = jiraClient(s);
    const { key } = await client.issues.createIssue(story("Planned"));
    const created = await authedFetch(s, "/rest/agile/1.0/sprint", {
      method: "POST",
      body: JSON.stringify({ name: "S1", originBoardId: 1 }),
    });
    const { id } = (await created.json()) as { id: number };
    await authedFetch(s, `/rest/agile/1.0/sprint/${id}/issue`, {
      method: "POST",
      body: JSON.stringify({ issues: [key] }),
    });
    await authedFetch(s, `/rest/agile/1.0/sprint/${id}`, {
      method: "POST",
      body: JSON.stringify({
        state: "active",
        startDate: "2026-01-05T09:00:00.000Z",
        endDate: "2026-01-19T09:00:00.000Z",
      }),
    });
    await s.drainWebhooks();
    const events = parsed(got);
    expect(events.map((e) => e.webhookEvent)).toEqual([
      "jira:issue_created",
      "sprint_created",
      "jira:issue_updated",
      "sprint_started",
    ]);
    const moved = events[2] as z.infer<typeof IssueEvent>;
    expect(moved.changelog?.items.map((i) => [i.field, i.fieldtype, i.to, i.toString])).toEqual([
      ["Sprint", "custom", String(id), "S1"],
    ]);
  });
});
