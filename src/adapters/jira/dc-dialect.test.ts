import { describe, expect, it } from "vitest";
import {
  changelogAnswer,
  changelogRequest,
  createMetaAnswer,
  decodeCursor,
  inbound,
  narrowJql,
  outbound,
  parseSprintString,
  searchAnswer,
  searchAsked,
  searchRequest,
  wikiBlockLost,
  wikiToDoc,
  type WikiSources,
} from "./dc-dialect.js";

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
    const sources: WikiSources = new Map();
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

  it("narrows the query after the last issue instead of paging past maxResultWindow", () => {
    const issue = (key: string, updated: string) => ({ key, fields: { updated } });
    const byKey = searchAsked({ jql: 'project = "WID" ORDER BY key ASC', maxResults: 2 });
    const keyPage = searchAnswer(
      {
        startAt: 8,
        total: 20,
        maxResultWindow: 10,
        issues: [issue("WID-9", ""), issue("WID-10", "")],
      },
      byKey,
    );
    expect(decodeCursor(keyPage.nextPageToken)).toEqual({ offset: 0, clause: 'key > "WID-10"' });
    expect(searchRequest({ ...byKey, nextPageToken: keyPage.nextPageToken })).toMatchObject({
      jql: 'project = "WID" AND key > "WID-10" ORDER BY key ASC',
      startAt: 0,
    });

    const at = "2026-11-02T09:00:05.000+0000";
    const ms = Date.parse(at);
    const jql = 'project = "WID" AND updated >= 0 ORDER BY updated ASC, key ASC';
    const byDate = searchAsked({ jql, maxResults: 3 });
    const datePage = searchAnswer(
      {
        startAt: 6,
        total: 20,
        maxResultWindow: 10,
        issues: [
          issue("WID-4", "2026-11-02T09:00:04.000+0000"),
          issue("WID-5", at),
          issue("WID-6", at),
        ],
      },
      byDate,
    );
    const cursor = decodeCursor(datePage.nextPageToken);
    expect(cursor).toEqual({ offset: 0, clause: `updated >= ${ms}`, skip: ["WID-5", "WID-6"] });
    // The next answer leaves out the issues read before at that instant.
    const asked = searchAsked({ jql, maxResults: 3, nextPageToken: datePage.nextPageToken });
    expect(
      searchRequest({ jql, nextPageToken: datePage.nextPageToken, fields: ["summary"] }),
    ).toMatchObject({
      jql: `project = "WID" AND updated >= 0 AND updated >= ${ms} ORDER BY updated ASC, key ASC`,
      fields: ["summary", "updated"],
    });
    const next = searchAnswer(
      {
        startAt: 0,
        total: 3,
        maxResultWindow: 10,
        issues: [issue("WID-5", at), issue("WID-6", at), issue("WID-7", at)],
      },
      asked,
    );
    expect(next).toEqual({ issues: [issue("WID-7", at)], isLast: true });
    // Within the window, offsets go on as before; a descending order never narrows.
    expect(
      searchAnswer({ startAt: 0, total: 20, maxResultWindow: 10, issues: [{}, {}] }, byKey),
    ).toMatchObject({
      nextPageToken: "2",
    });
    const desc = searchAsked({ jql: "project = WID ORDER BY key DESC", maxResults: 2 });
    expect(
      searchAnswer(
        { startAt: 8, total: 20, maxResultWindow: 10, issues: [issue("WID-2", "")] },
        desc,
      ).nextPageToken,
    ).toBe("9");
    expect(narrowJql("project = WID", 'key > "WID-1"')).toBe('project = WID AND key > "WID-1"');
  });

  it("reads a changelog page from DC's expand=changelog", () => {
    expect(changelogRequest("/rest/api/3/issue/WID-1/changelog")).toEqual({
      url: "/rest/api/2/issue/WID-1",
      params: { expand: "changelog", fields: "status" },
    });
    expect(changelogRequest("/rest/api/3/issue/WID-1")).toBeUndefined();
    const histories = [{ id: "1" }, { id: "2" }, { id: "3" }];
    expect(changelogAnswer({ changelog: { histories } }, 1, 1)).toEqual({
      startAt: 1,
      maxResults: 1,
      total: 3,
      isLast: false,
      values: [{ id: "2" }],
    });
    expect(changelogAnswer({}, 0, 100)).toMatchObject({ total: 0, isLast: true, values: [] });
  });

  it("names what rewriting a wiki block from Markdown loses: constructs kept as text, and what wiki cannot write", () => {
    const sources: WikiSources = new Map();
    const doc = wikiToDoc(
      "Ship {color:red}today{color}.\n\n{code}\nhas {noformat}\n{code}",
      sources,
    );
    const [colour, code] = doc.content;
    if (colour === undefined || code === undefined) throw new Error("two blocks expected");
    expect(wikiBlockLost(colour, "Ship {color:red}today{color}.", sources)).toEqual([
      "text colour",
    ]);
    // Written from Markdown, a fence without a language is {noformat}, which this text ends.
    expect(wikiBlockLost(code, "```\nhas {noformat}\n```", sources)).toEqual([
      "{noformat} inside a code block",
    ]);
    expect(wikiBlockLost({ type: "paragraph" }, "plain", sources)).toEqual([]);
  });

  it("reads DC's create metadata pages (values) as Cloud's issueTypes and fields", () => {
    const page = { startAt: 0, maxResults: 50, total: 1, isLast: true };
    const types = { ...page, values: [{ id: "10001", name: "Story" }] };
    expect(createMetaAnswer("/rest/api/2/issue/createmeta/WID/issuetypes", types)).toEqual({
      ...page,
      issueTypes: [{ id: "10001", name: "Story" }],
    });
    const fields = { ...page, values: [{ fieldId: "priority", defaultValue: { name: "Low" } }] };
    expect(createMetaAnswer("/rest/api/2/issue/createmeta/WID/issuetypes/10001", fields)).toEqual({
      ...page,
      fields: [{ fieldId: "priority", defaultValue: { name: "Low" } }],
    });
    // Anything else passes as it came.
    expect(createMetaAnswer("/rest/api/2/issue/WID-1", types)).toBe(types);
  });
});
