import type { Version3Client } from "jira.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { authedFetch, failure, jiraClient, story } from "./jira-sandbox-helpers.js";

let sandbox: JiraSandbox;
let client: Version3Client;

beforeAll(async () => {
  sandbox = await startJiraSandbox();
  client = jiraClient(sandbox);
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.reset();
});

async function seed(n: number): Promise<string[]> {
  const res = await client.issues.createIssues({
    issueUpdates: Array.from({ length: n }, (_, i) => story(`Story ${i + 1}`)),
  });
  return (res.issues ?? []).map((i) => i.key);
}

describe("the Jira sandbox: /rest/api/3/search/jql", () => {
  it("pages with nextPageToken and isLast, without total, returning only ids by default", async () => {
    await seed(7);
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    const lasts: string[] = [];
    for (;;) {
      const page = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
        jql: "project = WID ORDER BY key ASC",
        maxResults: 3,
        ...(token === undefined ? {} : { nextPageToken: token }),
      });
      pages++;
      expect(page).not.toHaveProperty("total");
      for (const issue of page.issues ?? []) {
        expect(Object.keys(issue)).toEqual(["id"]);
        seen.push(issue.id);
      }
      token = page.nextPageToken;
      lasts.push(
        `${String((page as { isLast?: boolean }).isLast)}:${token === undefined ? "no-token" : "token"}`,
      );
      if (token === undefined) break;
    }
    expect(lasts).toEqual(["false:token", "false:token", "true:no-token"]);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
  });

  it("returns the requested fields through POST and orders by updated then key", async () => {
    const keys = await seed(3);
    await client.issues.editIssue({ issueIdOrKey: keys[0]!, fields: { summary: "touched" } });
    const page = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearchPost({
      jql: "project = WID ORDER BY updated ASC, key ASC",
      fields: ["summary", "updated"],
    });
    expect(page.issues?.map((i) => i.key)).toEqual([keys[1], keys[2], keys[0]]);
    expect(page.issues?.[2]?.fields.summary).toBe("touched");
    expect(Object.keys(page.issues?.[0]?.fields ?? {}).sort()).toEqual(["summary", "updated"]);
  });

  it("filters with key in, parent, and updated >= as a date string or epoch ms", async () => {
    const keys = await seed(3);
    const sub = await client.issues.createIssue({
      fields: {
        project: { key: "WID" },
        issuetype: { name: "Sub-task" },
        summary: "child",
        parent: { key: keys[0]! },
      },
    });
    const keysOf = async (jql: string) =>
      (
        await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({ jql, fields: ["key"] })
      ).issues
        ?.map((i) => i.key)
        .sort();
    expect(await keysOf(`key in (${keys[0]!}, ${keys[2]!})`)).toEqual([keys[0], keys[2]].sort());
    expect(await keysOf(`parent = ${keys[0]!}`)).toEqual([sub.key]);
    expect(await keysOf(`project = WID AND updated >= "2000/01/01 00:00"`)).toHaveLength(4);
    expect(await keysOf(`project = WID AND updated >= "2999/01/01 00:00"`)).toEqual([]);
    // Epoch bounds from the issues' own change times, not from this host's clock a minute
    // either side (which held only while the test ran within that minute).
    const found = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
      jql: "project = WID",
      fields: ["updated"],
    });
    const stamps = (found.issues ?? []).map((i) => Date.parse(i.fields.updated));
    expect(stamps).toHaveLength(4);
    const newest = Math.max(...stamps);
    expect(await keysOf(`project = WID AND updated >= ${newest + 1}`)).toEqual([]);
    expect(await keysOf(`project = WID AND updated >= ${newest}`)).toHaveLength(1);
    expect(await keysOf(`project = WID AND updated >= ${Math.min(...stamps)}`)).toHaveLength(4);
  });

  it("refuses unbounded JQL with 400", async () => {
    const r = await failure(
      client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({ jql: "ORDER BY key DESC" }),
    );
    expect(r.status).toBe(400);
    expect(r.data).toEqual({
      errorMessages: [
        "Unbounded JQL queries are not allowed here. Please add a search restriction to your query.",
      ],
      errors: {},
    });
  });

  it("refuses unsupported JQL and unknown fields with Jira-like messages", async () => {
    const or = await failure(
      client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
        jql: "project = WID OR key = WID-1",
      }),
    );
    expect(or.status).toBe(400);
    const unknown = await failure(
      client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({ jql: "frobs = 1" }),
    );
    expect(unknown.data).toEqual({
      errorMessages: ["Field 'frobs' does not exist or you do not have permission to view it."],
      errors: {},
    });
    const project = await failure(
      client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({ jql: "project = NOPE" }),
    );
    expect(project.data).toMatchObject({
      errorMessages: ["The value 'NOPE' does not exist for the field 'project'."],
    });
    const date = await failure(
      client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({ jql: 'updated >= "yesterday"' }),
    );
    expect(date.status).toBe(400);
  });

  it("answers 410 with the CHANGE-2046 message on the removed /search", async () => {
    for (const path of [
      "/rest/api/3/search?jql=project%3DWID",
      "/rest/api/2/search?jql=project%3DWID",
    ]) {
      const res = await authedFetch(sandbox, path);
      expect(res.status).toBe(410);
      const body = (await res.json()) as { errorMessages: string[] };
      expect(body.errorMessages[0]).toContain("/rest/api/3/search/jql");
    }
  });

  it("caps maxResults at 100 with fields and at 5000 with ids only", async () => {
    await seed(50);
    await seed(50);
    await seed(20);
    const withFields = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
      jql: "project = WID",
      maxResults: 500,
      fields: ["summary"],
    });
    expect(withFields.issues).toHaveLength(100);
    const idsOnly = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
      jql: "project = WID",
      maxResults: 500,
    });
    expect(idsOnly.issues).toHaveLength(120);
  });

  it("finds issues by entity property with issue.property[key].path", async () => {
    const keys = await seed(3);
    await client.issueProperties.setIssueProperty({
      issueIdOrKey: keys[1]!,
      propertyKey: "tinypm",
      propertyValue: { id: "US-42", hash: "abc" },
    });
    const prop = await client.issueProperties.getIssueProperty({
      issueIdOrKey: keys[1]!,
      propertyKey: "tinypm",
    });
    expect(prop.value).toEqual({ id: "US-42", hash: "abc" });
    const page = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
      jql: 'project = WID AND issue.property[tinypm].id = "US-42"',
      fields: ["key"],
      properties: ["tinypm"],
    });
    expect(page.issues?.map((i) => i.key)).toEqual([keys[1]]);
    expect(page.issues?.[0]?.properties).toEqual({ tinypm: { id: "US-42", hash: "abc" } });
  });

  it("hides recent writes for the indexing lag unless they are reconciled", async () => {
    const lagged = await startJiraSandbox({ indexingLagMs: 60_000 });
    try {
      const c = jiraClient(lagged);
      const created = await c.issues.createIssue(story("fresh"));
      const hidden = await c.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
        jql: "project = WID",
      });
      expect(hidden.issues).toEqual([]);
      const shown = await c.issueSearch.searchForIssuesUsingJqlEnhancedSearchPost({
        jql: "project = WID",
        reconcileIssues: [Number(created.id)],
      });
      expect(shown.issues?.map((i) => i.id)).toEqual([created.id]);
    } finally {
      await lagged.close();
    }
  });
});
