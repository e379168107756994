import { afterEach, describe, expect, it } from "vitest";
import type { GithubTracker } from "../../src/adapters/github/index.js";
import type { ChangePage } from "../../src/core/tracker.js";
import { startGithubHarness, type GithubHarness } from "./github-setup.js";

/**
 * Issue #36: after a migration the GitHub adapter sets the change feed's checkpoint past its own
 * writes (one listing, no comment reads), so that the next feed read is one 304 — and sets none
 * when anything else changed the repository since its full read.
 */
let h: GithubHarness;
let clock = Date.parse("2026-03-02T10:00:00Z");
afterEach(async () => {
  await h.close();
});

const start = async (): Promise<GithubTracker> => {
  clock = Date.parse("2026-03-02T10:00:00Z");
  h = await startGithubHarness({ now: () => clock });
  return h.tracker;
};

/** A migration's writes: a full listing first, then a story with a comment and a task under it. */
async function migrate(tracker: GithubTracker): Promise<{ story: string; task: string }> {
  for await (const item of tracker.list({})) expect(item.id).not.toBe("");
  const story = await tracker.create({
    kind: "story",
    title: "Story",
    status: "open",
    assignees: [],
    labels: [],
  });
  clock += 1000;
  await tracker.addComment(
    { kind: "story", id: story.id },
    { author: { login: "alice" }, createdAt: "2026-01-01T00:00:00Z", body: "Said once" },
  );
  clock += 1000;
  const task = await tracker.create({
    kind: "task",
    title: "Task",
    status: "closed:completed",
    assignees: [],
    labels: [],
  });
  await tracker.addSubIssue(story.id, task.id);
  clock += 1000;
  return { story: story.id, task: task.id };
}

async function pagesFrom(tracker: GithubTracker, cp: unknown): Promise<ChangePage[]> {
  const out: ChangePage[] = [];
  for await (const page of tracker.changes(cp as never)) out.push(page);
  return out;
}

async function personPost(path: string, body: unknown): Promise<void> {
  const s = h.sandbox;
  const res = await fetch(`${s.url}/repos/${s.owner}/${s.repo}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`${path}: ${String(res.status)} ${await res.text()}`);
}

describe("GitHub feed checkpoint after a migration's writes", () => {
  it("lists the repository without comments, then the next feed read is one 304", async () => {
    const tracker = await start();
    await migrate(tracker);
    const before = h.sandbox.stats();
    const cp = await tracker.checkpointAfterWrites();
    const primed = h.sandbox.stats();
    expect(cp).toBeDefined();
    expect(primed.byRoute["GET /repos/:owner/:repo/issues/:number/comments"] ?? 0).toBe(
      before.byRoute["GET /repos/:owner/:repo/issues/:number/comments"] ?? 0,
    );
    expect(primed.requests - before.requests).toBe(2);
    const pages = await pagesFrom(tracker, cp);
    const after = h.sandbox.stats();
    expect(pages.flatMap((p) => p.changes)).toEqual([]);
    expect([after.requests - primed.requests, after.notModified - primed.notModified]).toEqual([
      1, 1,
    ]);
  });

  it("still feeds a change made after it", async () => {
    const tracker = await start();
    const { task } = await migrate(tracker);
    const cp = await tracker.checkpointAfterWrites();
    clock += 1000;
    await personPost(`/issues/${task}/comments`, { body: "A person's word" });
    const changed = (await pagesFrom(tracker, cp)).flatMap((p) => p.changes);
    expect(changed.map((c) => (c.kind === "upsert" ? c.item.id : ""))).toEqual([task]);
  });

  it("sets none when a person commented after the migration's writes", async () => {
    const tracker = await start();
    const { story } = await migrate(tracker);
    await personPost(`/issues/${story}/comments`, { body: "Meanwhile" });
    expect(await tracker.checkpointAfterWrites()).toBeUndefined();
  });

  it("sets none when a person filed an issue during the migration", async () => {
    const tracker = await start();
    await migrate(tracker);
    await personPost("/issues", { title: "Filed meanwhile" });
    expect(await tracker.checkpointAfterWrites()).toBeUndefined();
  });

  it("sets none for an issue edited after the full listing, before any write of its own", async () => {
    const tracker = await start();
    await personPost("/issues", { title: "Older" });
    clock += 1000;
    for await (const item of tracker.list({})) expect(item.id).not.toBe("");
    clock += 1000;
    await personPost("/issues/1/comments", { body: "Edited after the read" });
    await tracker.create({
      kind: "story",
      title: "Story",
      status: "open",
      assignees: [],
      labels: [],
    });
    expect(await tracker.checkpointAfterWrites()).toBeUndefined();
  });
});
