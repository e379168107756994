/**
 * Data Center's changelog and deep search, adapter against sandbox over HTTP: DC has no
 * `/issue/{key}/changelog` (the history is `GET /issue/{key}?expand=changelog`), and Jira 11
 * bounds `/search` paging by `maxResultWindow`, so the adapter reads past it by narrowing the
 * query after the last issue read (key, or updated instant) instead of paging deeper.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJiraTracker } from "../../src/adapters/jira/index.js";
import type { Tracker } from "../../src/core/tracker.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";

const T0 = Date.parse("2026-11-02T09:00:00.000Z");

describe("Jira adapter on Data Center: changelog and deep search", () => {
  let sandbox: JiraSandbox;
  let now = T0;
  let tracker: Tracker;
  const call = async (path: string, init: RequestInit = {}) =>
    fetch(`${sandbox.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${sandbox.token}`, "content-type": "application/json" },
    });
  const create = async (summaries: readonly string[]): Promise<void> => {
    const res = await call("/rest/api/2/issue/bulk", {
      method: "POST",
      body: JSON.stringify({
        issueUpdates: summaries.map((summary) => ({
          fields: { project: { key: "WID" }, issuetype: { name: "Story" }, summary },
        })),
      }),
    });
    expect(res.status).toBe(201);
  };
  const transition = async (key: string, to: string): Promise<void> => {
    const list = (await (await call(`/rest/api/2/issue/${key}/transitions`)).json()) as {
      transitions: { id: string; to: { name: string } }[];
    };
    const id = list.transitions.find((t) => t.to.name === to)?.id;
    const res = await call(`/rest/api/2/issue/${key}/transitions`, {
      method: "POST",
      body: JSON.stringify({ transition: { id } }),
    });
    expect(res.status).toBe(204);
  };

  beforeAll(async () => {
    sandbox = await startJiraSandbox({
      deployment: "datacenter",
      maxResultWindow: 5,
      now: () => now,
    });
    // 12 stories: one a second, except WID-5..WID-7, created (so updated) at one instant.
    for (let n = 1; n <= 12; n++) {
      if (n >= 6 && n <= 7) continue;
      now += 1000;
      await create(n === 5 ? ["Story 5", "Story 6", "Story 7"] : [`Story ${n}`]);
    }
    tracker = createJiraTracker({
      baseUrl: sandbox.url,
      email: "",
      token: sandbox.token,
      projectKey: sandbox.projectKey,
      deployment: "datacenter",
      pageSize: 2,
    });
  });
  afterAll(async () => {
    await tracker.close();
    await sandbox.close();
  });

  it("the sandbox has no changelog endpoint, answers expand=changelog and refuses a page past the window", async () => {
    expect((await call("/rest/api/2/issue/WID-1/changelog")).status).toBe(404);
    const issue = (await (await call("/rest/api/2/issue/WID-1?expand=changelog")).json()) as {
      changelog: { total: number; histories: unknown[] };
    };
    expect(issue.changelog).toMatchObject({ total: 0, histories: [] });
    expect(await (await call("/rest/api/2/searchLimits/maxResultWindow")).json()).toBe(5);
    const deep = await call("/rest/api/2/search?jql=project%3DWID&startAt=4&maxResults=2");
    expect(deep.status).toBe(400);
    expect(JSON.stringify(await deep.json())).toContain("[5] but was [6]");
    const last = (await (
      await call("/rest/api/2/search?jql=project%3DWID&startAt=3&maxResults=2")
    ).json()) as { maxResultWindow: number; total: number };
    expect(last).toMatchObject({ maxResultWindow: 5, total: 12 });
  });

  it("reads a status history through expand=changelog", async () => {
    await transition("WID-2", "In Progress");
    now += 1000;
    const since = new Date(now).toISOString();
    await transition("WID-2", "To Do");
    expect(await tracker.statusHistory?.({ kind: "story", id: "WID-2" })).toEqual([
      "To Do",
      "In Progress",
      "To Do",
    ]);
    expect(
      await tracker.statusLeftSince?.({ kind: "story", id: "WID-2" }, "In Progress", since),
    ).toBe(true);
    expect(sandbox.stats().byStatus["404"]).toBe(1); // the sandbox test's own probe only
  });

  it("lists every story past maxResultWindow, in key order, each once", async () => {
    const keys: string[] = [];
    for await (const item of tracker.list({ kind: "story" })) keys.push(item.id);
    expect(keys).toEqual(Array.from({ length: 12 }, (_, i) => `WID-${i + 1}`));
    expect(sandbox.stats().byStatus["400"]).toBe(1); // the sandbox test's own deep page only
  });

  it("reads the change feed past maxResultWindow, stories sharing an instant each once", async () => {
    const keys: string[] = [];
    for await (const page of tracker.changes(undefined))
      for (const change of page.changes) if (change.kind === "upsert") keys.push(change.item.id);
    // Updated order: WID-2 was transitioned last.
    const expected = Array.from({ length: 12 }, (_, i) => `WID-${i + 1}`).filter(
      (k) => k !== "WID-2",
    );
    expect(keys).toEqual([...expected, "WID-2"]);
    expect(sandbox.stats().byStatus["400"]).toBe(1);
  });
});
