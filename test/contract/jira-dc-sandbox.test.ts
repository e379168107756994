/**
 * The Data Center sandbox's own wire facts, over HTTP: v2 only, Bearer PATs with Seraph's
 * anonymous fallback, users by name, `/search` with startAt, per-project createmeta, sprint
 * strings, and DC rate-limit headers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";

describe("Jira Data Center sandbox", () => {
  let sandbox: JiraSandbox;
  let limited: JiraSandbox;
  const call = (path: string, init: RequestInit = {}, token = sandbox.token, base = sandbox.url) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        ...(init.headers as Record<string, string> | undefined),
      },
    });
  beforeAll(async () => {
    sandbox = await startJiraSandbox({ deployment: "datacenter" });
    limited = await startJiraSandbox({
      deployment: "datacenter",
      rateLimits: "max=3,fill=1/60s",
    });
  });
  afterAll(async () => {
    await sandbox.close();
    await limited.close();
  });

  it("serves REST v2 only: v3, /search/jql and the global createmeta are not there", async () => {
    expect((await call("/rest/api/3/myself")).status).toBe(404);
    expect((await call("/rest/api/2/search/jql?jql=project=WID")).status).toBe(404);
    expect((await call("/rest/api/2/issue/createmeta?projectKeys=WID")).status).toBe(404);
    const info = (await (await call("/rest/api/2/serverInfo")).json()) as Record<string, unknown>;
    expect(info).toMatchObject({ deploymentType: "Server", versionNumbers: [10, 3, 6] });
  });

  it("takes a PAT as Bearer; refuses Basic; a refused PAT reads as anonymous", async () => {
    const me = (await (await call("/rest/api/2/myself")).json()) as Record<string, unknown>;
    expect(me).toMatchObject({ name: "sandbox", key: "JIRAUSER10000" });
    expect(me).not.toHaveProperty("accountId");
    const basic = await fetch(`${sandbox.url}/rest/api/2/myself`, {
      headers: {
        authorization: `Basic ${Buffer.from(`sandbox:${sandbox.token}`).toString("base64")}`,
      },
    });
    expect(basic.status).toBe(401);
    const search = await call("/rest/api/2/search?jql=project%3DWID", {}, "wrong");
    expect(search.status).toBe(200);
    expect(search.headers.get("x-seraph-loginreason")).toBe("AUTHENTICATED_FAILED");
    expect(await search.json()).toMatchObject({ total: 0, issues: [] });
    const myself = await call("/rest/api/2/myself", {}, "wrong");
    expect(myself.status).toBe(401);
    expect(myself.headers.get("x-seraph-loginreason")).toBe("AUTHENTICATED_FAILED");
  });

  it("stores wiki strings, assigns by name, pages search by startAt, reads sprints as strings", async () => {
    const created = await call("/rest/api/2/issue/bulk", {
      method: "POST",
      body: JSON.stringify({
        issueUpdates: [1, 2, 3].map((n) => ({
          fields: {
            project: { key: "WID" },
            issuetype: { name: "Story" },
            summary: `Story ${n}`,
            description: "||a||b||\n|1|2|\n\n{code:ts}\nconst a_b = 1;\n{code}",
            assignee: { name: "alice" },
          },
        })),
      }),
    });
    expect(created.status).toBe(201);
    const page = (await (
      await call("/rest/api/2/search?jql=project%3DWID%20ORDER%20BY%20key&startAt=1&maxResults=1")
    ).json()) as {
      startAt: number;
      total: number;
      issues: { key: string; fields: Record<string, unknown> }[];
    };
    expect(page).toMatchObject({ startAt: 1, maxResults: 1, total: 3 });
    expect(page.issues[0]?.key).toBe("WID-2");
    const fields = page.issues[0]?.fields ?? {};
    expect(fields.description).toBe("||a||b||\n|1|2|\n\n{code:ts}\nconst a_b = 1;\n{code}");
    expect(fields.assignee).toMatchObject({ name: "alice", key: "JIRAUSER10100" });
    const users = (await (
      await call("/rest/api/2/user/search?username=example.com")
    ).json()) as unknown[];
    expect(users.length).toBe(0);
    const byEmail = (await (await call("/rest/api/2/user/search?username=bob@")).json()) as {
      name: string;
    }[];
    expect(byEmail.map((u) => u.name)).toEqual(["bob"]);
    const types = (await (await call("/rest/api/2/issue/createmeta/WID/issuetypes")).json()) as {
      values: { id: string; name: string }[];
    };
    expect(types.values.map((t) => t.name)).toContain("Story");
    const story = types.values.find((t) => t.name === "Story");
    const meta = (await (
      await call(`/rest/api/2/issue/createmeta/WID/issuetypes/${story?.id ?? ""}`)
    ).json()) as { values: { fieldId: string }[] };
    expect(meta.values.map((f) => f.fieldId)).toContain("summary");
    const sprint = (await (
      await call("/rest/agile/1.0/sprint", {
        method: "POST",
        body: JSON.stringify({ name: "S1", originBoardId: 1, goal: "a, b [c]" }),
      })
    ).json()) as { id: number };
    await call(`/rest/agile/1.0/sprint/${sprint.id}/issue`, {
      method: "POST",
      body: JSON.stringify({ issues: ["WID-1"] }),
    });
    const issue = (await (
      await call("/rest/api/2/issue/WID-1?fields=customfield_10020")
    ).json()) as {
      fields: { customfield_10020: string[] };
    };
    expect(issue.fields.customfield_10020[0]).toMatch(
      /^com\.atlassian\.greenhopper\.service\.sprint\.Sprint@[0-9a-f]+\[id=1,rapidViewId=1,state=FUTURE,name=S1,.*,goal=a, b \[c\],synced=false/,
    );
  });

  it("sends Data Center's rate-limit headers and a 429 with Retry-After in seconds", async () => {
    const answers: Response[] = [];
    for (let i = 0; i < 4; i++)
      answers.push(await call("/rest/api/2/myself", {}, limited.token, limited.url));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    const first = Object.fromEntries(answers[0]?.headers ?? []);
    expect(first).toMatchObject({
      "x-ratelimit-limit": "3",
      "x-ratelimit-remaining": "2",
      "x-ratelimit-interval-seconds": "60",
      "x-ratelimit-fillrate": "1",
      "retry-after": "0",
    });
    expect(Number(answers[3]?.headers.get("retry-after"))).toBeGreaterThanOrEqual(59);
  });
});
