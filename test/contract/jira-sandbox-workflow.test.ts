import type { Version3Client } from "jira.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { authedFetch, doc, failure, jiraClient, story } from "./jira-sandbox-helpers.js";

let sandbox: JiraSandbox;
let client: Version3Client;

beforeAll(async () => {
  sandbox = await startJiraSandbox({ storyPointsFieldId: "customfield_10042" });
  client = jiraClient(sandbox);
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.reset();
});

async function newIssue(summary = "Work"): Promise<string> {
  return (await client.issues.createIssue(story(summary))).key;
}

async function transitionNames(key: string): Promise<string[]> {
  const { transitions } = await client.issues.getTransitions({ issueIdOrKey: key });
  return (transitions ?? []).map((t) => t.name ?? "");
}

describe("the Jira sandbox: workflow transitions", () => {
  it("lists only the transitions valid from the current status", async () => {
    const key = await newIssue();
    expect(await transitionNames(key)).toEqual(["Start progress", "Reject"]);
    await client.issues.doTransition({ issueIdOrKey: key, transition: { id: "11" } });
    expect(await transitionNames(key)).toEqual(["Send to testing", "Reject", "Stop progress"]);
  });

  it("keeps each status change in the issue's changelog, oldest first, paged", async () => {
    const key = await newIssue();
    expect((await client.issues.getChangeLogs({ issueIdOrKey: key })).values).toEqual([]);
    await client.issues.doTransition({ issueIdOrKey: key, transition: { id: "11" } });
    await client.issues.doTransition({ issueIdOrKey: key, transition: { id: "51" } });
    const all = await client.issues.getChangeLogs({ issueIdOrKey: key });
    expect(all).toMatchObject({ startAt: 0, total: 2, isLast: true });
    const moves = (all.values ?? []).map((v) =>
      (v.items ?? []).map((i) => `${i.field}: ${i.fromString} -> ${i.toString}`),
    );
    expect(moves).toEqual([["status: To Do -> In Progress"], ["status: In Progress -> To Do"]]);
    expect(all.values?.[0]?.author?.accountId).toEqual(expect.any(String));
    const second = await client.issues.getChangeLogs({
      issueIdOrKey: key,
      startAt: 1,
      maxResults: 1,
    });
    expect(second).toMatchObject({ startAt: 1, maxResults: 1, total: 2, isLast: true });
    expect(second.values?.[0]?.items?.[0]?.toString).toBe("To Do");
  });

  it("keeps each edit of its fields in the changelog, between its transitions", async () => {
    const key = await newIssue("First");
    await client.issues.editIssue({ issueIdOrKey: key, fields: { summary: "Second" } });
    await client.issues.doTransition({ issueIdOrKey: key, transition: { id: "11" } });
    await client.issues.editIssue({ issueIdOrKey: key, fields: { summary: "Second" } });
    await client.issues.editIssue({
      issueIdOrKey: key,
      fields: { summary: "Third", labels: ["b", "a"] },
    });
    const all = await client.issues.getChangeLogs({ issueIdOrKey: key });
    expect(all).toMatchObject({ total: 3, isLast: true });
    const changes = (all.values ?? []).map((v) =>
      (v.items ?? []).map((i) => `${i.fieldId}: ${i.fromString} -> ${i.toString}`),
    );
    // An edit that changes nothing is no entry.
    expect(changes).toEqual([
      ["summary: First -> Second"],
      ["status: To Do -> In Progress"],
      ["summary: Second -> Third", "labels: null -> a b"],
    ]);
    const ids = (all.values ?? []).map((v) => Number(v.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(3);
  });

  it("refuses a transition that is not valid from the current status", async () => {
    const key = await newIssue();
    const r = await failure(
      client.issues.doTransition({ issueIdOrKey: key, transition: { id: "21" } }),
    );
    expect(r.status).toBe(400);
    expect(r.data).toEqual({
      errorMessages: ["Transition id '21' is not valid for this issue."],
      errors: {},
    });
  });

  it("needs a resolution to enter Done, then sets status category and resolution", async () => {
    const key = await newIssue();
    await client.issues.doTransition({ issueIdOrKey: key, transition: { id: "11" } });
    await client.issues.doTransition({ issueIdOrKey: key, transition: { id: "21" } });
    const missing = await failure(
      client.issues.doTransition({ issueIdOrKey: key, transition: { id: "31" } }),
    );
    expect(missing.status).toBe(400);
    expect(missing.data).toMatchObject({ errors: { resolution: expect.any(String) as string } });
    const expanded = await client.issues.getTransitions({
      issueIdOrKey: key,
      expand: "transitions.fields",
    });
    const done = expanded.transitions?.find((t) => t.id === "31");
    expect(done?.fields).toMatchObject({ resolution: { required: true } });
    await client.issues.doTransition({
      issueIdOrKey: key,
      transition: { id: "31" },
      fields: { resolution: { name: "Done" } },
    });
    const got = await client.issues.getIssue({
      issueIdOrKey: key,
      fields: ["status", "resolution", "resolutiondate"],
    });
    expect(got.fields.status.name).toBe("Done");
    expect(got.fields.status.statusCategory?.key).toBe("done");
    expect(got.fields.resolution?.name).toBe("Done");
    expect(got.fields.resolutiondate).toMatch(/\+0000$/);
    await client.issues.doTransition({ issueIdOrKey: key, transition: { id: "71" } });
    const reopened = await client.issues.getIssue({
      issueIdOrKey: key,
      fields: ["status", "resolution"],
    });
    expect(reopened.fields.status.name).toBe("To Do");
    expect(reopened.fields.resolution).toBeNull();
  });

  it("ignores a transition in an edit", async () => {
    const key = await newIssue();
    const res = await authedFetch(sandbox, `/rest/api/3/issue/${key}`, {
      method: "PUT",
      body: JSON.stringify({ fields: { summary: "renamed" }, transition: { id: "11" } }),
    });
    expect(res.status).toBe(204);
    const got = await client.issues.getIssue({ issueIdOrKey: key, fields: ["status", "summary"] });
    expect(got.fields.status.name).toBe("To Do");
    expect(got.fields.summary).toBe("renamed");
  });
});

describe("the Jira sandbox: comments and worklogs", () => {
  it("round-trips ADF comment bodies and pages with startAt, maxResults, total", async () => {
    const key = await newIssue();
    for (let i = 1; i <= 5; i++) {
      await client.issueComments.addComment({ issueIdOrKey: key, comment: doc(`c${i}`) });
    }
    const page = await client.issueComments.getComments({
      issueIdOrKey: key,
      startAt: 2,
      maxResults: 2,
    });
    expect(page.total).toBe(5);
    expect(page.startAt).toBe(2);
    expect(page.comments?.map((c) => c.body)).toEqual([doc("c3"), doc("c4")]);
    expect(page.comments?.[0]?.author?.accountId).toBe("acc-sandbox");
  });

  it("refuses a plain-string comment body", async () => {
    const key = await newIssue();
    const res = await authedFetch(sandbox, `/rest/api/3/issue/${key}/comment`, {
      method: "POST",
      body: JSON.stringify({ body: "plain text" }),
    });
    expect(res.status).toBe(400);
  });

  it("answers 413 past the per-issue comment cap", async () => {
    const capped = await startJiraSandbox({ maxCommentsPerIssue: 1 });
    try {
      const c = jiraClient(capped);
      const { key } = await c.issues.createIssue(story("capped"));
      await c.issueComments.addComment({ issueIdOrKey: key, comment: doc("one") });
      const r = await failure(
        c.issueComments.addComment({ issueIdOrKey: key, comment: doc("two") }),
      );
      expect(r.status).toBe(413);
    } finally {
      await capped.close();
    }
  });

  it("stores worklogs with Jira's started format and pages them", async () => {
    const key = await newIssue();
    for (let i = 0; i < 3; i++) {
      await client.issueWorklogs.addWorklog({
        issueIdOrKey: key,
        started: `2026-11-2${i}T09:30:00.000+0000`,
        timeSpentSeconds: 3600 * (i + 1),
        comment: doc(`w${i}`),
      });
    }
    const page = await client.issueWorklogs.getIssueWorklog({
      issueIdOrKey: key,
      startAt: 1,
      maxResults: 1,
    });
    expect(page.total).toBe(3);
    expect(page.worklogs).toHaveLength(1);
    expect(page.worklogs[0]).toMatchObject({
      started: "2026-11-21T09:30:00.000+0000",
      timeSpentSeconds: 7200,
      timeSpent: "2h",
      comment: doc("w1"),
    });
  });

  it("refuses a started value in another format", async () => {
    const key = await newIssue();
    const r = await failure(
      client.issueWorklogs.addWorklog({
        issueIdOrKey: key,
        started: "2026-11-21T09:30:00Z",
        timeSpentSeconds: 60,
      }),
    );
    expect(r.status).toBe(400);
    expect(r.data).toMatchObject({ errors: { started: expect.any(String) as string } });
  });

  it("gets and deletes a comment and a worklog by id, then answers 404 with Jira's words", async () => {
    const key = await newIssue();
    const c = await client.issueComments.addComment({ issueIdOrKey: key, comment: doc("c") });
    const w = await client.issueWorklogs.addWorklog({
      issueIdOrKey: key,
      started: "2026-11-21T09:30:00.000+0000",
      timeSpentSeconds: 60,
    });
    const commentId = c.id ?? "";
    const worklogId = w.id ?? "";
    expect(
      await client.issueComments.getComment({ issueIdOrKey: key, id: commentId }),
    ).toMatchObject({ id: commentId, body: doc("c") });
    expect(
      await client.issueWorklogs.getWorklog({ issueIdOrKey: key, id: worklogId }),
    ).toMatchObject({ id: worklogId, timeSpentSeconds: 60 });
    await client.issueComments.deleteComment({ issueIdOrKey: key, id: commentId });
    await client.issueWorklogs.deleteWorklog({ issueIdOrKey: key, id: worklogId });
    const noComment = await failure(
      client.issueComments.getComment({ issueIdOrKey: key, id: commentId }),
    );
    expect(noComment.status).toBe(404);
    expect(JSON.stringify(noComment.data)).toContain(
      `Can not find a comment for the id: ${commentId}.`,
    );
    const noWorklog = await failure(
      client.issueWorklogs.getWorklog({ issueIdOrKey: key, id: worklogId }),
    );
    expect(noWorklog.status).toBe(404);
    expect(JSON.stringify(noWorklog.data)).toContain(`Cannot find worklog with id: ${worklogId}.`);
    const page = await client.issueWorklogs.getIssueWorklog({ issueIdOrKey: key });
    expect(page.total).toBe(0);
  });

  it("answers 413 past the per-issue worklog cap", async () => {
    const capped = await startJiraSandbox({ maxWorklogsPerIssue: 1 });
    try {
      const c = jiraClient(capped);
      const { key } = await c.issues.createIssue(story("capped"));
      const worklog = {
        issueIdOrKey: key,
        started: "2026-11-21T09:30:00.000+0000",
        timeSpentSeconds: 60,
      };
      await c.issueWorklogs.addWorklog(worklog);
      const r = await failure(c.issueWorklogs.addWorklog(worklog));
      expect(r.status).toBe(413);
      expect(JSON.stringify(r.data)).toContain("The issue has reached the limit of 1 worklogs.");
    } finally {
      await capped.close();
    }
  });
});

describe("the Jira sandbox: fields, priorities, users, project", () => {
  it("lists site-specific custom fields with their schema.custom", async () => {
    const fields = await client.issueFields.getFields();
    const byCustom = (c: string) => fields.filter((f) => f.schema?.custom === c).map((f) => f.id);
    expect(byCustom("com.atlassian.jira.plugin.system.customfieldtypes:float")).toEqual([
      "customfield_10042",
    ]);
    expect(byCustom("com.pyxis.greenhopper.jira:gh-sprint")).toEqual(["customfield_10020"]);
    expect(fields.find((f) => f.id === "summary")?.custom).toBe(false);
  });

  it("writes story points through the site's own field id only", async () => {
    const key = await newIssue();
    await client.issues.editIssue({ issueIdOrKey: key, fields: { customfield_10042: 8 } });
    const got = await client.issues.getIssue({ issueIdOrKey: key, fields: ["customfield_10042"] });
    expect(got.fields.customfield_10042).toBe(8);
    const wrong = await failure(
      client.issues.editIssue({ issueIdOrKey: key, fields: { customfield_10016: 3 } }),
    );
    expect(wrong.status).toBe(400);
  });

  it("lists the five priorities", async () => {
    const priorities = await client.issuePriorities.getPriorities();
    expect(priorities.map((p) => p.name)).toEqual(["Highest", "High", "Medium", "Low", "Lowest"]);
  });

  it("finds users by accountId and hides some emails", async () => {
    const all = await client.users.getAllUsers({ maxResults: 50 });
    const alice = all.find((u) => u.accountId === "acc-alice");
    const bob = all.find((u) => u.accountId === "acc-bob");
    expect(alice).toMatchObject({
      displayName: "Alice Andersson",
      emailAddress: "alice@example.com",
    });
    expect(bob?.displayName).toBe("Bob Berg");
    expect(bob).not.toHaveProperty("emailAddress");
    const found = await client.userSearch.findAssignableUsers({ project: "WID", query: "car" });
    expect(found.map((u) => u.accountId)).toEqual(["acc-carol"]);
    const byEmail = await client.userSearch.findUsers({ query: "bob@example.com" });
    expect(byEmail).toEqual([]);
  });

  it("describes the project with its issue types", async () => {
    const project = await client.projects.getProject({ projectIdOrKey: "WID" });
    expect(project.name).toBe("Widgets");
    const types = Object.fromEntries((project.issueTypes ?? []).map((t) => [t.name ?? "", t]));
    expect(types.Story).toMatchObject({ id: "10001", subtask: false, hierarchyLevel: 0 });
    expect(types["Sub-task"]).toMatchObject({ id: "10003", subtask: true, hierarchyLevel: -1 });
    expect(types.Epic?.hierarchyLevel).toBe(1);
  });
});
