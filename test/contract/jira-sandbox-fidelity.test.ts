import { afterEach, describe, expect, it } from "vitest";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { authedFetch, doc, story } from "./jira-sandbox-helpers.js";

/** One test per Jira entry of the fidelity ledger in docs/sandboxes.md. */

let sandbox: JiraSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(options: Parameters<typeof startJiraSandbox>[0] = {}): Promise<JiraSandbox> {
  sandbox = await startJiraSandbox(options);
  return sandbox;
}

const call = async (
  s: JiraSandbox,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> => {
  const res = await authedFetch(s, path, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === "" ? undefined : (JSON.parse(text) as unknown) };
};

const create = async (s: JiraSandbox, summary: string, extra = {}): Promise<string> => {
  const r = await call(s, "POST", "/rest/api/3/issue", story(summary, extra));
  expect(r.status).toBe(201);
  return (r.json as { key: string }).key;
};

describe("Jira sandbox fidelity ledger", () => {
  it("J1 serverInfo carries versionNumbers, buildNumber, buildDate, serverTime, scmInfo", async () => {
    const s = await start();
    for (const v of ["3", "2", "latest"]) {
      const r = await call(s, "GET", `/rest/api/${v}/serverInfo`);
      expect(r.status).toBe(200);
      const info = r.json as Record<string, unknown>;
      expect(info.versionNumbers).toEqual([1001, 0, 0]);
      expect(typeof info.buildNumber).toBe("number");
      expect(info.buildDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/);
      expect(info.serverTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/);
      expect(typeof info.scmInfo).toBe("string");
      expect(info.deploymentType).toBe("Cloud");
    }
  });

  it("J2 serves REST v2 over v3's store, with plain-text bodies", async () => {
    const s = await start();
    const made = await call(s, "POST", "/rest/api/2/issue", {
      fields: {
        project: { key: "WID" },
        issuetype: { name: "Story" },
        summary: "v2",
        description: "first line\n\nthird line",
      },
    });
    expect(made.status).toBe(201);
    const key = (made.json as { key: string; self: string }).key;
    expect((made.json as { self: string }).self).toContain("/rest/api/2/issue/");
    // v3 sees an ADF document, v2 the text back.
    const v3 = await call(s, "GET", `/rest/api/3/issue/${key}?fields=description`);
    expect((v3.json as { fields: { description: { type: string } } }).fields.description.type).toBe(
      "doc",
    );
    const v2 = await call(s, "GET", `/rest/api/2/issue/${key}?fields=description`);
    expect((v2.json as { fields: { description: string } }).fields.description).toBe(
      "first line\n\nthird line",
    );
    // Comments, worklogs, edits, transitions and search in v2.
    const c = await call(s, "POST", `/rest/api/2/issue/${key}/comment`, { body: "hello" });
    expect(c.status).toBe(201);
    expect((c.json as { body: string }).body).toBe("hello");
    const w = await call(s, "POST", `/rest/api/2/issue/${key}/worklog`, {
      timeSpentSeconds: 3600,
      comment: "an hour",
      started: "2026-11-01T09:00:00.000+0000",
    });
    expect(w.status).toBe(201);
    expect((w.json as { comment: string }).comment).toBe("an hour");
    const edit = await call(s, "PUT", `/rest/api/2/issue/${key}`, {
      update: { description: [{ set: "changed" }], labels: [{ add: "v2" }] },
    });
    expect(edit.status).toBe(204);
    const v3c = await call(s, "GET", `/rest/api/3/issue/${key}/comment`);
    expect(JSON.stringify(v3c.json)).toContain('"type":"doc"');
    const tr = await call(s, "GET", `/rest/api/latest/issue/${key}/transitions`);
    expect(tr.status).toBe(200);
    const found = await call(s, "POST", "/rest/api/2/search/jql", {
      jql: "project = WID",
      fields: ["description", "labels"],
    });
    const issue = (
      found.json as { issues: { fields: { description: string; labels: string[] } }[] }
    ).issues[0];
    expect(issue?.fields).toEqual({ description: "changed", labels: ["v2"] });
    expect((await call(s, "GET", "/rest/api/2/myself")).status).toBe(200);
    expect((await call(s, "GET", "/rest/api/2/field")).status).toBe(200);
    expect((await call(s, "GET", "/rest/api/2/search?jql=project=WID")).status).toBe(410);
  });

  it("J3 lists projects at GET /rest/api/3/project", async () => {
    const s = await start();
    const r = await call(s, "GET", "/rest/api/3/project");
    expect(r.status).toBe(200);
    expect((r.json as { key: string }[]).map((p) => p.key)).toEqual(["WID"]);
  });

  it("J4 PUT issue/{key}/assignee → 204 (v2, v3, latest); null unassigns", async () => {
    const s = await start();
    const key = await create(s, "a");
    for (const v of ["3", "2", "latest"]) {
      const r = await call(s, "PUT", `/rest/api/${v}/issue/${key}/assignee`, {
        accountId: "acc-bob",
      });
      expect([v, r.status]).toEqual([v, 204]);
    }
    const read = async (): Promise<unknown> =>
      (
        (await call(s, "GET", `/rest/api/3/issue/${key}?fields=assignee`)).json as {
          fields: { assignee: { accountId: string } | null };
        }
      ).fields.assignee;
    expect(await read()).toMatchObject({ accountId: "acc-bob" });
    expect(
      (await call(s, "PUT", `/rest/api/3/issue/${key}/assignee`, { accountId: null })).status,
    ).toBe(204);
    expect(await read()).toBeNull();
    const unknown = await call(s, "PUT", `/rest/api/3/issue/${key}/assignee`, {
      accountId: "acc-nobody",
    });
    expect(unknown.status).toBe(400);
    expect(
      (await call(s, "PUT", "/rest/api/3/issue/WID-99/assignee", { accountId: null })).status,
    ).toBe(404);
  });

  it('J5 accepts an issue link with "comment": null (201)', async () => {
    const s = await start();
    const a = await create(s, "a");
    const b = await create(s, "b");
    const r = await call(s, "POST", "/rest/api/3/issueLink", {
      type: { name: "Relates" },
      inwardIssue: { key: a },
      outwardIssue: { key: b },
      comment: null,
    });
    expect(r.status).toBe(201);
  });

  it("J6 reads boolean query parameters case-insensitively", async () => {
    const s = await start();
    const parent = await create(s, "parent");
    await call(s, "POST", "/rest/api/3/issue", {
      fields: {
        project: { key: "WID" },
        issuetype: { name: "Sub-task" },
        summary: "child",
        parent: { key: parent },
      },
    });
    expect(
      (await call(s, "DELETE", `/rest/api/3/issue/${parent}?deleteSubtasks=True`)).status,
    ).toBe(204);
    const other = await create(s, "other");
    expect(
      (await call(s, "DELETE", `/rest/api/3/issue/${other}?deleteSubtasks=maybe`)).status,
    ).toBe(400);
  });

  it("J7 serves the legacy GET issue/createmeta (not read as an issue key)", async () => {
    const s = await start();
    const r = await call(
      s,
      "GET",
      "/rest/api/3/issue/createmeta?projectKeys=WID&issuetypeNames=Story&expand=projects.issuetypes.fields",
    );
    expect(r.status).toBe(200);
    const meta = r.json as {
      projects: {
        key: string;
        issuetypes: { name: string; fields: Record<string, { required: boolean }> }[];
      }[];
    };
    expect(meta.projects.map((p) => p.key)).toEqual(["WID"]);
    expect(meta.projects[0]?.issuetypes.map((t) => t.name)).toEqual(["Story"]);
    expect(meta.projects[0]?.issuetypes[0]?.fields.summary?.required).toBe(true);
    const none = await call(s, "GET", "/rest/api/2/issue/createmeta?projectKeys=NOPE");
    expect(none.json).toEqual({ expand: "projects", projects: [] });
  });

  it("J10 create metadata gives the priority's defaultValue, which a create without one gets", async () => {
    const s = await start({ defaultPriority: "High" });
    const types = await call(s, "GET", "/rest/api/3/issue/createmeta/WID/issuetypes");
    const storyType = (
      types.json as { issueTypes: { id: string; name: string }[] }
    ).issueTypes.find((t) => t.name === "Story");
    if (storyType === undefined) throw new Error("no Story type");
    const page = (from: number, max: number) =>
      call(
        s,
        "GET",
        `/rest/api/3/issue/createmeta/WID/issuetypes/${storyType.id}?startAt=${from}&maxResults=${max}`,
      );
    const all = (await page(0, 50)).json as {
      total: number;
      fields: { fieldId: string; hasDefaultValue?: boolean; defaultValue?: { name: string } }[];
    };
    const priority = all.fields.find((f) => f.fieldId === "priority");
    expect(priority).toMatchObject({ hasDefaultValue: true, defaultValue: { name: "High" } });
    expect(all.fields.find((f) => f.fieldId === "summary")?.hasDefaultValue).toBe(false);
    // Paged as the API says: startAt and maxResults, with the total.
    const second = (await page(2, 2)).json as { startAt: number; total: number; fields: unknown[] };
    expect(second).toMatchObject({ startAt: 2, total: all.total });
    expect(second.fields).toEqual(all.fields.slice(2, 4));
    const key = await create(s, "no priority");
    const made = (await call(s, "GET", `/rest/api/3/issue/${key}`)).json as {
      fields: { priority: { name: string } };
    };
    expect(made.fields.priority.name).toBe("High");
  });

  it("J8 comment and worklog authors carry no locale (UserDetails)", async () => {
    const s = await start();
    const key = await create(s, "a");
    const c = await call(s, "POST", `/rest/api/3/issue/${key}/comment`, { body: doc("x") });
    const w = await call(s, "POST", `/rest/api/3/issue/${key}/worklog`, {
      timeSpentSeconds: 60,
      started: "2026-11-01T09:00:00.000+0000",
    });
    for (const body of [c.json, w.json] as { author: object; updateAuthor: object }[]) {
      expect("locale" in body.author).toBe(false);
      expect("locale" in body.updateAuthor).toBe(false);
      expect(body.author).toMatchObject({ accountId: "acc-sandbox" });
    }
    const me = (await call(s, "GET", "/rest/api/3/myself")).json as { locale?: string };
    expect(me.locale).toBe("en_US");
  });

  it("J9 eventual consistency: JQL search misses a fresh issue until indexed or reconciled", async () => {
    // A hand-moved clock: under load the calls below may take longer than any real lag.
    let now = Date.UTC(2026, 10, 1);
    const s = await start({ consistency: "eventual", indexingLagMs: 300, now: () => now });
    const key = await create(s, "fresh");
    const id = ((await call(s, "GET", `/rest/api/3/issue/${key}`)).json as { id: string }).id;
    const search = async (extra = {}): Promise<number> =>
      (
        (await call(s, "POST", "/rest/api/3/search/jql", { jql: "project = WID", ...extra }))
          .json as {
          issues: unknown[];
        }
      ).issues.length;
    expect(await search()).toBe(0);
    expect(await search({ reconcileIssues: [Number(id)] })).toBe(1);
    now += 299;
    expect(await search()).toBe(0);
    now += 1;
    expect(await search()).toBe(1);
  });
});
