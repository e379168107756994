import { describe, expect, it } from "vitest";
import { inbound, outbound, parseSprintString, searchAnswer, searchRequest } from "./dc-dialect.js";

const SPRINT =
  "com.atlassian.greenhopper.service.sprint.Sprint@9e3779b1[id=266,rapidViewId=174,state=CLOSED,name=Sprint, the first,startDate=2026-01-05T09:00:00.000Z,endDate=2026-01-19T09:00:00.000Z,completeDate=<null>,activatedDate=2026-01-05T09:00:00.000Z,sequence=266,goal=Ship it, then rest [really],synced=false,autoStartStop=false,incompleteIssuesDestinationId=<null>]";

describe("Jira Data Center dialect", () => {
  it("parses a sprint toString() whose name and goal hold commas and brackets", () => {
    expect(parseSprintString(SPRINT)).toEqual({
      id: 266,
      name: "Sprint, the first",
      state: "closed",
      boardId: 174,
      goal: "Ship it, then rest [really]",
      startDate: "2026-01-05T09:00:00.000Z",
      endDate: "2026-01-19T09:00:00.000Z",
    });
    // Older servers print fewer keys, in the same order.
    expect(
      parseSprintString(
        "com.atlassian.greenhopper.service.sprint.Sprint@1a[id=3,rapidViewId=1,state=ACTIVE,name=S3,goal=,sequence=3]",
      ),
    ).toMatchObject({ id: 3, name: "S3", state: "active", goal: "" });
  });

  it("reads answers in Cloud's shapes: wiki as documents, users with an accountId, sprints as objects", () => {
    const sources = new Map<string, string>();
    const raw = {
      fields: {
        description: "h2.  Title\n\n*bold* text",
        assignee: { name: "alice", key: "JIRAUSER10100", displayName: "Alice" },
        customfield_10020: [SPRINT],
      },
      properties: { "tinypm-sync": { comment: "kept as it is" } },
    };
    const read = inbound(raw, sources) as {
      fields: Record<string, unknown>;
      properties: unknown;
    };
    expect(read.fields.description).toMatchObject({
      type: "doc",
      content: [{ type: "heading" }, { type: "paragraph" }],
    });
    expect(read.fields.assignee).toMatchObject({ accountId: "alice", name: "alice" });
    expect(read.fields.customfield_10020).toEqual([expect.objectContaining({ id: 266 })]);
    expect(read.properties).toEqual(raw.properties);
    // Written back unchanged, the description is the person's own spelling.
    const written = outbound(
      { fields: { description: read.fields.description, assignee: { accountId: "bob" } } },
      sources,
    );
    expect(written).toEqual({
      fields: { description: "h2.  Title\n\n*bold* text", assignee: { name: "bob" } },
    });
  });

  it("pages /search by startAt behind Cloud's page tokens", () => {
    expect(
      searchRequest({
        jql: "project = WID",
        nextPageToken: "100",
        maxResults: 100,
        reconcileIssues: [1],
      }),
    ).toEqual({
      jql: "project = WID",
      startAt: 100,
      maxResults: 100,
    });
    expect(
      searchAnswer({ startAt: 100, total: 250, issues: new Array(100).fill({}) }),
    ).toMatchObject({
      isLast: false,
      nextPageToken: "200",
    });
    expect(searchAnswer({ startAt: 200, total: 250, issues: new Array(50).fill({}) })).toEqual({
      issues: new Array(50).fill({}),
      isLast: true,
    });
  });
});
