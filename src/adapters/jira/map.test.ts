import { describe, expect, it } from "vitest";
import { draftToFields, propertyValue, setToFields, toWorkItem, worklogStarted } from "./map.js";
import type { RawIssue } from "./schema.js";

const ctx = {
  baseUrl: "https://x.atlassian.net",
  storyPointsField: "customfield_10016",
  sprintField: "customfield_10020",
};

const raw: RawIssue = {
  id: "10001",
  key: "WID-2",
  fields: {
    summary: "Sub",
    description: {
      type: "doc",
      content: [
        {
          type: "paragraph",
          content: [
            { type: "text", text: "a" },
            { type: "hardBreak" },
            { type: "text", text: "b" },
          ],
        },
      ],
    },
    status: { name: "In Progress" },
    priority: { name: "High" },
    labels: ["x"],
    assignee: { accountId: "acc-alice", displayName: "Alice Andersson" },
    issuetype: { name: "Sub-task", subtask: true },
    parent: { key: "WID-1" },
    updated: "2026-01-01T10:00:00.000+0000",
    customfield_10016: 3,
    customfield_10020: [
      { id: 1, name: "Old", state: "closed" },
      { id: 2, name: "Sprint 2", state: "active" },
    ],
    worklog: {
      worklogs: [
        {
          id: "9",
          author: { accountId: "acc-bob" },
          started: "2026-02-03T09:00:00.000+0000",
          timeSpentSeconds: 5400,
          comment: null,
        },
      ],
    },
  },
  properties: {
    "tinypm-sync": {
      marker: { job: "j", origin: "tinypm", originKind: "task", originId: "7" },
      meta: { color: "RED" },
    },
  },
};

describe("toWorkItem", () => {
  it("maps a sub-task with its canonical conventions", () => {
    expect(toWorkItem(raw, ctx)).toEqual({
      system: "jira",
      kind: "task",
      id: "WID-2",
      parentId: "WID-1",
      title: "Sub",
      description: "a\nb",
      status: "In Progress",
      priority: "High",
      estimate: 3,
      iteration: { id: "2", name: "Sprint 2" },
      assignees: [{ id: "acc-alice", name: "Alice Andersson" }],
      labels: ["x"],
      comments: [],
      timeEntries: [{ id: "9", user: { id: "acc-bob" }, date: "2026-02-03", hours: 1.5 }],
      metadata: { color: "RED" },
      marker: { job: "j", origin: "tinypm", originKind: "task", originId: "7" },
      updatedAt: "2026-01-01T10:00:00.000+0000",
      url: "https://x.atlassian.net/browse/WID-2",
      // The description's blocks as Jira holds them, so that an edit rewrites only what changed.
      richDescription: {
        separator: "\n\n",
        blocks: [
          {
            text: "a\nb",
            lost: [],
            rich: {
              type: "paragraph",
              content: [
                { type: "text", text: "a" },
                { type: "hardBreak" },
                { type: "text", text: "b" },
              ],
            },
          },
        ],
      },
    });
  });
});

describe("writes", () => {
  it("builds create fields for a sub-task", () => {
    const fields = draftToFields(
      {
        kind: "task",
        parentId: "WID-1",
        title: "T",
        status: "To Do",
        description: "x",
        estimate: 2,
        assignees: [{ id: "acc-bob" }],
        labels: ["l"],
        priority: "Low",
      },
      {
        projectKey: "WID",
        storyPointsField: "customfield_10016",
        storyType: "Story",
        subtaskType: "Sub-task",
      },
    );
    expect(fields).toMatchObject({
      project: { key: "WID" },
      issuetype: { name: "Sub-task" },
      parent: { key: "WID-1" },
      summary: "T",
      priority: { name: "Low" },
      customfield_10016: 2,
      labels: ["l"],
      assignee: { accountId: "acc-bob" },
      description: { type: "doc", version: 1 },
    });
  });

  it("sets a story's sprint and the create transition's fields, never a sub-task's sprint", () => {
    const ctx = {
      projectKey: "WID",
      storyPointsField: undefined,
      storyType: "Story",
      subtaskType: "Sub-task",
      sprintField: "customfield_10020",
    };
    const base = { title: "T", status: "Rejected", assignees: [], labels: [] };
    const extras = { sprintId: 7, transitionFields: { resolution: { name: "Won't Do" } } };
    expect(draftToFields({ ...base, kind: "story" }, ctx, extras)).toMatchObject({
      customfield_10020: 7,
      resolution: { name: "Won't Do" },
    });
    const task = draftToFields({ ...base, kind: "task", parentId: "WID-1" }, ctx, extras);
    expect(task).not.toHaveProperty("customfield_10020");
    expect(draftToFields({ ...base, kind: "story" }, ctx)).not.toHaveProperty("customfield_10020");
  });

  it("clears fields set to undefined, but never the priority (Jira cannot clear it)", () => {
    expect(setToFields({ priority: undefined, assignees: [] }, "cf")).toEqual({
      assignee: null,
    });
  });

  it("keeps marker fields flat for JQL and the metadata apart", () => {
    const m = { job: "j", origin: "tinypm" as const, originKind: "story" as const, originId: "1" };
    expect(propertyValue(m, { a: 1 })).toEqual({ ...m, v: 2, marker: m, meta: { a: 1 } });
    // Version 2: the instance is flat too (JQL), the digests only inside `marker`; no emails.
    const m2 = { ...m, instance: "abc", project: "1", tinypmId: "1", base: { title: "0011" } };
    const user = { id: "7", login: "erin", name: "Erin Example", email: "erin@example.com" };
    expect(propertyValue(m2, { who: user })).toEqual({
      ...m,
      instance: "abc",
      v: 2,
      marker: m2,
      meta: { who: { id: "7", login: "erin" } },
    });
    expect(worklogStarted("2026-02-03")).toBe("2026-02-03T09:00:00.000+0000");
  });
});
