import type { Version3Client } from "jira.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { authedFetch, doc, failure, jiraClient, story } from "./jira-sandbox-helpers.js";

let sandbox: JiraSandbox;
let client: Version3Client;

beforeAll(async () => {
  sandbox = await startJiraSandbox({ token: "t0ken" });
  client = jiraClient(sandbox);
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.reset();
});

const status = failure;
const authed = (path: string, init?: RequestInit) => authedFetch(sandbox, path, init);

describe("the Jira sandbox: auth and identity", () => {
  it("answers myself for the configured email and token", async () => {
    const me = await client.myself.getCurrentUser();
    expect(me.emailAddress).toBe("sandbox@example.com");
    expect(me.accountId).toBe("acc-sandbox");
  });

  it("refuses a wrong token with 401 and Jira's error body", async () => {
    const auth = Buffer.from(`${sandbox.email}:wrong`).toString("base64");
    const res = await fetch(`${sandbox.url}/rest/api/3/myself`, {
      headers: { authorization: `Basic ${auth}` },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      errorMessages: ["Client must be authenticated to access this resource."],
      errors: {},
    });
  });

  it("refuses a missing Authorization header with 401", async () => {
    const res = await fetch(`${sandbox.url}/rest/api/3/myself`);
    expect(res.status).toBe(401);
  });
});

describe("the Jira sandbox: creating issues", () => {
  it("creates an issue with increasing keys and returns {id, key, self}", async () => {
    const a = await client.issues.createIssue(story("First", { description: doc("Hello") }));
    const b = await client.issues.createIssue(story("Second"));
    expect(a.key).toBe("WID-1");
    expect(b.key).toBe("WID-2");
    expect(a.self).toBe(`${sandbox.url}/rest/api/3/issue/${a.id}`);
    const got = await client.issues.getIssue({ issueIdOrKey: "WID-1" });
    expect(got.fields.summary).toBe("First");
    expect(got.fields.description).toEqual(doc("Hello"));
    expect(got.fields.status.name).toBe("To Do");
    expect(got.fields.created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/);
  });

  it("names the missing required fields in errors", async () => {
    const r = await status(
      client.issues.createIssue({ fields: { project: { key: "WID" } } } as never),
    );
    expect(r.status).toBe(400);
    expect(r.data).toEqual({
      errorMessages: [],
      errors: {
        issuetype: "Specify an issue type",
        summary: "You must specify a summary of the issue.",
      },
    });
  });

  it("refuses a plain-string description as v3 does (jira.js would wrap it, so raw fetch)", async () => {
    const res = await authed("/rest/api/3/issue", {
      method: "POST",
      body: JSON.stringify(story("x", { description: "plain" })),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      errorMessages: [],
      errors: {
        description:
          "Operation value must be an Atlassian Document (see the Atlassian Document Format)",
      },
    });
  });

  it("bulk-creates with partial failure mapped by failedElementNumber", async () => {
    const res = await client.issues.createIssues({
      issueUpdates: [
        story("ok 1"),
        { fields: { project: { key: "WID" }, issuetype: { name: "Story" } } },
        story("ok 2"),
      ],
    });
    expect(res.issues?.map((i) => i.key)).toEqual(["WID-1", "WID-2"]);
    expect(res.errors).toEqual([
      {
        status: 400,
        failedElementNumber: 1,
        elementErrors: {
          errorMessages: [],
          errors: { summary: "You must specify a summary of the issue." },
        },
      },
    ]);
  });

  it("answers 400 with the same shape when every element fails, and 400 above 50", async () => {
    const bad = { fields: { project: { key: "WID" } } };
    const all = await authed("/rest/api/3/issue/bulk", {
      method: "POST",
      body: JSON.stringify({ issueUpdates: [bad, bad] }),
    });
    expect(all.status).toBe(400);
    const body = (await all.json()) as {
      issues: unknown[];
      errors: { failedElementNumber: number }[];
    };
    expect(body.issues).toEqual([]);
    expect(body.errors.map((e) => e.failedElementNumber)).toEqual([0, 1]);
    const many = Array.from({ length: 51 }, (_, i) => story(`s${i}`));
    const tooMany = await authed("/rest/api/3/issue/bulk", {
      method: "POST",
      body: JSON.stringify({ issueUpdates: many }),
    });
    expect(tooMany.status).toBe(400);
  });

  it("creates sub-tasks under a parent and lists them on the parent", async () => {
    const parent = await client.issues.createIssue(story("Parent"));
    const sub = await client.issues.createIssue({
      fields: {
        project: { key: "WID" },
        issuetype: { id: "10003" },
        summary: "Child",
        parent: { key: parent.key },
      },
    });
    const got = await client.issues.getIssue({ issueIdOrKey: parent.key });
    expect(got.fields.subtasks.map((s) => s.key)).toEqual([sub.key]);
    const child = await client.issues.getIssue({
      issueIdOrKey: sub.key,
      fields: ["parent", "issuetype"],
    });
    expect(child.fields.parent?.key).toBe(parent.key);
    expect(child.fields.issuetype?.subtask).toBe(true);
    const orphan = await status(
      client.issues.createIssue({
        fields: { project: { key: "WID" }, issuetype: { id: "10003" }, summary: "Orphan" },
      }),
    );
    expect(orphan.status).toBe(400);
  });
});

describe("the Jira sandbox: editing issues", () => {
  it("edits labels, assignee, priority and story points and answers 204", async () => {
    const { key } = await client.issues.createIssue(story("Edit me", { labels: ["a", "b"] }));
    const res = await authed(`/rest/api/3/issue/${key}`, {
      method: "PUT",
      body: JSON.stringify({
        fields: {
          assignee: { accountId: "acc-alice" },
          priority: { name: "High" },
          customfield_10016: 5,
        },
        update: { labels: [{ add: "c" }, { remove: "a" }] },
      }),
    });
    expect(res.status).toBe(204);
    const got = await client.issues.getIssue({ issueIdOrKey: key });
    expect(got.fields.labels).toEqual(["b", "c"]);
    expect(got.fields.assignee.accountId).toBe("acc-alice");
    expect(got.fields.priority.name).toBe("High");
    expect(got.fields.customfield_10016).toBe(5);
    expect(Date.parse(got.fields.updated)).toBeGreaterThan(Date.parse(got.fields.created) - 1);
  });

  it("adds a comment through update.comment in an edit", async () => {
    const { key } = await client.issues.createIssue(story("Commented"));
    await client.issues.editIssue({
      issueIdOrKey: key,
      update: { comment: [{ add: { body: doc("via edit") } }] },
    });
    const page = await client.issueComments.getComments({ issueIdOrKey: key });
    expect(page.comments?.map((c) => c.body)).toEqual([doc("via edit")]);
  });

  it("rejects status as a field with errors.status", async () => {
    const { key } = await client.issues.createIssue(story("Status"));
    const r = await status(
      client.issues.editIssue({ issueIdOrKey: key, fields: { status: { name: "Done" } } }),
    );
    expect(r.status).toBe(400);
    expect(r.data).toEqual({
      errorMessages: [],
      errors: {
        status: "Field 'status' cannot be set. It is not on the appropriate screen, or unknown.",
      },
    });
  });

  it("answers 404 for an unknown issue", async () => {
    const r = await status(client.issues.getIssue({ issueIdOrKey: "WID-999" }));
    expect(r.status).toBe(404);
    expect(r.data).toEqual({
      errorMessages: ["Issue does not exist or you do not have permission to see it."],
      errors: {},
    });
  });
});

describe("the Jira sandbox: issue links and metadata", () => {
  it("links issues with 201 and an empty body, accepts duplicates, and shows the link on both", async () => {
    const a = await client.issues.createIssue(story("A"));
    const b = await client.issues.createIssue(story("B"));
    const body = JSON.stringify({
      type: { name: "Blocks" },
      inwardIssue: { key: a.key },
      outwardIssue: { key: b.key },
    });
    const first = await authed("/rest/api/3/issueLink", { method: "POST", body });
    expect(first.status).toBe(201);
    expect(await first.text()).toBe("");
    expect((await authed("/rest/api/3/issueLink", { method: "POST", body })).status).toBe(201);
    const gotA = await client.issues.getIssue({ issueIdOrKey: a.key, fields: ["issuelinks"] });
    const gotB = await client.issues.getIssue({ issueIdOrKey: b.key, fields: ["issuelinks"] });
    expect(gotA.fields.issuelinks).toHaveLength(1);
    expect(gotA.fields.issuelinks[0]).toMatchObject({
      type: { name: "Blocks" },
      outwardIssue: { key: b.key },
    });
    expect(gotB.fields.issuelinks[0]).toMatchObject({ inwardIssue: { key: a.key } });
    const withComment = JSON.stringify({
      type: { name: "Relates" },
      inwardIssue: { key: a.key },
      outwardIssue: { key: b.key },
      comment: { body: doc("linked") },
    });
    expect(
      (await authed("/rest/api/3/issueLink", { method: "POST", body: withComment })).status,
    ).toBe(201);
    const comments = await client.issueComments.getComments({ issueIdOrKey: b.key });
    expect(comments.comments?.map((c) => c.body)).toEqual([doc("linked")]);
    const id = gotA.fields.issuelinks[0]!.id!;
    expect((await authed(`/rest/api/3/issueLink/${id}`, { method: "DELETE" })).status).toBe(204);
    const after = await client.issues.getIssue({ issueIdOrKey: a.key, fields: ["issuelinks"] });
    expect(after.fields.issuelinks.map((l) => l.type?.name)).toEqual(["Relates"]);
  });

  it("lists editable fields in editmeta without status", async () => {
    const { key } = await client.issues.createIssue(story("Meta"));
    const meta = await client.issues.getEditIssueMeta({ issueIdOrKey: key });
    const fields = Object.keys(meta.fields ?? {});
    expect(fields).toEqual(
      expect.arrayContaining(["summary", "labels", "customfield_10016", "customfield_10020"]),
    );
    expect(fields).not.toContain("status");
  });

  it("names the fields with expand=names", async () => {
    const { key } = await client.issues.createIssue(story("Names"));
    const got = await client.issues.getIssue({
      issueIdOrKey: key,
      fields: ["summary", "customfield_10016"],
      expand: "names",
    });
    expect(got.names).toEqual({ summary: "Summary", customfield_10016: "Story Points" });
  });

  it("creates an issue straight into a later status with a transition", async () => {
    const created = await client.issues.createIssue({
      ...story("Started"),
      transition: { id: "11" },
    });
    const got = await client.issues.getIssue({ issueIdOrKey: created.key, fields: ["status"] });
    expect(got.fields.status.name).toBe("In Progress");
  });

  it("reports a transition on create that fails, and keeps the issue in its initial status", async () => {
    const created = await client.issues.createIssues({
      issueUpdates: [
        { ...story("Moved"), transition: { id: "11" } },
        { ...story("Kept"), transition: { id: "31" } },
        {
          ...story("Rejected"),
          fields: { ...story("Rejected").fields, resolution: { name: "Won't Do" } },
          transition: { id: "41" },
        },
      ],
    });
    const [moved, kept, rejected] = created.issues ?? [];
    expect(moved?.transition?.status).toBe(204);
    expect(kept?.transition?.status).toBe(400);
    expect(rejected?.transition?.status).toBe(204);
    const got = await client.issues.getIssue({
      issueIdOrKey: kept?.key ?? "",
      fields: ["status"],
    });
    expect(got.fields.status.name).toBe("To Do");
    const done = await client.issues.getIssue({
      issueIdOrKey: rejected?.key ?? "",
      fields: ["status", "resolution"],
    });
    expect(done.fields.status.name).toBe("Rejected");
    expect(done.fields.resolution?.name).toBe("Won't Do");
  });
});
