import { describe, expect, it } from "vitest";
import { createJiraTracker } from "../../src/adapters/jira/index.js";
import type { ChangePage, Checkpoint } from "../../src/core/tracker.js";
import {
  startJiraSandbox,
  type JiraSandbox,
  type JiraSandboxOptions,
} from "../../src/sandboxes/jira/index.js";
import { personRequest, searchCount } from "./jira-sandbox-helpers.js";
import { closedAfterEach } from "../support/closed-after-each.js";

/**
 * Issue #36: after a migration the Jira adapter sets the change feed's checkpoint past its own
 * writes (one listing by the feed's search, issues not kept), so that the next feed read finds
 * nothing new — and sets none when anything else changed the project since it was read.
 */
type JiraTracker = ReturnType<typeof createJiraTracker>;

const opened = closedAfterEach();

let clock = 0;
async function start(
  options: JiraSandboxOptions = {},
): Promise<{ sandbox: JiraSandbox; tracker: JiraTracker }> {
  clock = Date.parse("2026-03-02T10:00:00Z");
  const sandbox = await startJiraSandbox({ now: () => clock, ...options });
  opened.push(sandbox);
  const tracker = createJiraTracker({
    baseUrl: sandbox.url,
    email: sandbox.email,
    token: sandbox.token,
    projectKey: sandbox.projectKey,
    deployment: sandbox.deployment,
    pageSize: 2,
  });
  opened.push(tracker);
  return { sandbox, tracker };
}

const alice = { login: "alice" };

/**
 * A migration's writes: a full listing first, then two stories (one created in its final
 * status, one moved there by an update), a comment and a worklog, and a task under the first.
 */
async function migrate(tracker: JiraTracker): Promise<{ story: string; task: string }> {
  for await (const item of tracker.list({})) expect(item.id).not.toBe("");
  const [story, other] = await tracker.createMany([
    { kind: "story", title: "Story", status: "In Progress", assignees: [], labels: ["a"] },
    { kind: "story", title: "Other", status: "To Do", assignees: [], labels: [] },
  ]);
  if (!(story && other) || story instanceof Error || other instanceof Error)
    throw new Error("the creates failed");
  clock += 1000;
  await tracker.update({ kind: "story", id: other.id }, { set: { status: "Done", title: "Done" } });
  clock += 1000;
  const ref = { kind: "story" as const, id: story.id };
  await tracker.addComment(ref, { author: alice, createdAt: "2026-01-01T00:00:00Z", body: "Once" });
  clock += 1000;
  await tracker.addTimeEntry(ref, { user: alice, date: "2026-01-02", hours: 1.5 });
  clock += 1000;
  const task = await tracker.create({
    kind: "task",
    parentId: story.id,
    title: "Task",
    status: "Done",
    assignees: [],
    labels: [],
  });
  clock += 1000;
  return { story: story.id, task: task.id };
}

async function pagesFrom(tracker: JiraTracker, cp: Checkpoint): Promise<ChangePage[]> {
  const out: ChangePage[] = [];
  for await (const page of tracker.changes(cp)) out.push(page);
  return out;
}

describe.each(["cloud", "datacenter"] as const)(
  "Jira feed checkpoint after a migration's writes (%s)",
  (deployment) => {
    it("lists the project page by page, then the next feed read finds nothing new", async () => {
      const { sandbox, tracker } = await start({ deployment });
      await migrate(tracker);
      const before = sandbox.stats();
      const s0 = searchCount(sandbox);
      const cp = await tracker.checkpointAfterWrites();
      expect(cp).toBeDefined();
      // Three issues, two a page: two searches and nothing else (no issue read by key).
      expect(searchCount(sandbox) - s0).toBe(2);
      expect(sandbox.stats().requests - before.requests).toBe(2);
      expect(sandbox.stats().writes).toBe(before.writes);
      const pages = await pagesFrom(tracker, cp ?? {});
      expect(pages.flatMap((p) => p.changes)).toEqual([]);
    });

    it("still feeds a person's edit made after it", async () => {
      const { sandbox, tracker } = await start({ deployment });
      const { task } = await migrate(tracker);
      const cp = await tracker.checkpointAfterWrites();
      clock += 1000;
      await personRequest(sandbox, "PUT", `/issue/${task}`, {
        fields: { summary: "A person's word" },
      });
      const changed = (await pagesFrom(tracker, cp ?? {})).flatMap((p) => p.changes);
      expect(changed.map((c) => (c.kind === "upsert" ? c.item.title : ""))).toEqual([
        "A person's word",
      ]);
    });
  },
);

describe("Jira feed checkpoint: a person's change during the migration sets none", () => {
  it("an edit between the migration's create of an issue and its comment", async () => {
    const { sandbox, tracker } = await start();
    const [story] = await tracker.createMany([
      { kind: "story", title: "Story", status: "To Do", assignees: [], labels: [] },
    ]);
    if (story === undefined || story instanceof Error) throw new Error("the create failed");
    clock += 1000;
    await personRequest(sandbox, "PUT", `/issue/${story.id}`, { fields: { summary: "Renamed" } });
    clock += 1000;
    await tracker.addComment(
      { kind: "story", id: story.id },
      { author: alice, createdAt: "2026-01-01T00:00:00Z", body: "Ours" },
    );
    expect(await tracker.checkpointAfterWrites()).toBeUndefined();
  });

  it("an edit of the comment the migration added", async () => {
    const { sandbox, tracker } = await start();
    const { story } = await migrate(tracker);
    const item = await personRequest(sandbox, "GET", `/issue/${story}/comment`);
    const id = (item as { comments: { id: string }[] }).comments[0]?.id ?? "";
    await personRequest(sandbox, "PUT", `/issue/${story}/comment/${id}`, {
      body: {
        type: "doc",
        version: 1,
        content: [{ type: "paragraph", content: [{ type: "text", text: "Twice" }] }],
      },
    });
    expect(await tracker.checkpointAfterWrites()).toBeUndefined();
  });

  it("an issue filed by a person", async () => {
    const { sandbox, tracker } = await start();
    await migrate(tracker);
    await personRequest(sandbox, "POST", "/issue", {
      fields: {
        project: { key: sandbox.projectKey },
        summary: "Filed",
        issuetype: { name: "Story" },
      },
    });
    const why: string[] = [];
    expect(await tracker.checkpointAfterWrites({ onNone: (w) => why.push(w) })).toBeUndefined();
    // Said, naming the issue: the first sync will read everything because of it.
    expect(why).toHaveLength(1);
    expect(why[0]).toMatch(/^issue [A-Z]+-\d+ was neither listed nor written by the migration$/);
  });

  it("an issue deleted by a person", async () => {
    const { sandbox, tracker } = await start();
    const { task } = await migrate(tracker);
    await personRequest(sandbox, "DELETE", `/issue/${task}`);
    const why: string[] = [];
    expect(await tracker.checkpointAfterWrites({ onNone: (w) => why.push(w) })).toBeUndefined();
    expect(why).toEqual([`issue ${task}, which the migration wrote, is gone`]);
  });

  it("an issue edited after the full listing, before any write of the migration's own", async () => {
    const { sandbox, tracker } = await start();
    const filed = (await personRequest(sandbox, "POST", "/issue", {
      fields: {
        project: { key: sandbox.projectKey },
        summary: "Older",
        issuetype: { name: "Story" },
      },
    })) as { key: string };
    clock += 1000;
    await migrate(tracker);
    await personRequest(sandbox, "PUT", `/issue/${filed.key}`, { fields: { labels: ["late"] } });
    expect(await tracker.checkpointAfterWrites()).toBeUndefined();
  });
});

describe("Jira feed checkpoint while search lags the writes", () => {
  it("reads by key the issues search does not show yet, and sets the checkpoint", async () => {
    const { sandbox, tracker } = await start({ consistency: "eventual", indexingLagMs: 2500 });
    const { task } = await migrate(tracker);
    const gets = (): number => sandbox.stats().byRoute["GET /rest/api/3/issue/:issueIdOrKey"] ?? 0;
    const g0 = gets();
    // The task and the story (its worklog) were written under 2.5 s ago: search shows neither.
    const cp = await tracker.checkpointAfterWrites();
    expect(cp).toBeDefined();
    expect(gets() - g0).toBe(2);
    clock += 5000;
    const pages = await pagesFrom(tracker, cp ?? {});
    expect(pages.flatMap((p) => p.changes)).toEqual([]);
    expect(task).not.toBe("");
  });

  it("sets none when the issue read by key is a person's version", async () => {
    const { sandbox, tracker } = await start({ consistency: "eventual", indexingLagMs: 1500 });
    const { task } = await migrate(tracker);
    await personRequest(sandbox, "PUT", `/issue/${task}`, { fields: { summary: "Meanwhile" } });
    const why: string[] = [];
    expect(await tracker.checkpointAfterWrites({ onNone: (w) => why.push(w) })).toBeUndefined();
    expect(why).toEqual([`issue ${task} differs from what the migration wrote or read`]);
  });
});
