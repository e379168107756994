import { afterEach, describe, expect, it } from "vitest";
import type { ChangePage } from "../../src/core/tracker.js";
import { countingGate } from "../support/counting-gate.js";
import { startGithubHarness, type GithubHarness } from "./github-setup.js";

let h: GithubHarness;
afterEach(async () => {
  await h.close();
});

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const story = (n: number) => ({
  kind: "story" as const,
  title: `Story ${n}`,
  status: "open",
  assignees: [],
  labels: [],
});

function ids(pages: readonly ChangePage[]): string[] {
  return pages.flatMap((p) => p.changes.flatMap((c) => (c.kind === "upsert" ? [c.item.id] : [])));
}

describe("GitHub adapter reads", () => {
  it("follows link URLs as given: the query stays the same size from page to page", async () => {
    const urls: string[] = [];
    h = await startGithubHarness(
      {},
      {
        fetch: async (input, init) => {
          urls.push(input instanceof Request ? input.url : String(input));
          return fetch(input, init);
        },
      },
    );
    const headers = { authorization: `token ${h.sandbox.token}`, "user-agent": "test" };
    for (let n = 1; n <= 301; n++) {
      await fetch(`${h.sandbox.url}/repos/${h.sandbox.owner}/${h.sandbox.repo}/issues`, {
        method: "POST",
        headers,
        body: JSON.stringify({ title: `Issue ${n}` }),
      }).then((r) => r.text());
    }
    const pages = await collect(h.tracker.changes(undefined));
    expect(new Set(ids(pages)).size).toBe(301);
    const lists = urls.filter((u) => /\/issues(\?|$)/.test(u)).map((u) => new URL(u));
    expect(lists.length).toBeGreaterThanOrEqual(4);
    for (const url of lists) {
      expect(url.searchParams.getAll("owner")).toEqual([]);
      expect(url.searchParams.getAll("state")).toEqual(["all"]);
    }
  });

  it("makes only 304s on an unchanged second changes()", async () => {
    const gate = countingGate("github");
    h = await startGithubHarness({}, { gate });
    for (let n = 1; n <= 3; n++) await h.tracker.create(story(n));
    const first = await collect(h.tracker.changes(undefined));
    expect(ids(first).sort()).toEqual(["1", "2", "3"]);
    expect(first.at(-1)?.complete).toBe(true);
    const before = h.sandbox.stats();
    const calls = gate.counters();
    const second = await collect(h.tracker.changes(first.at(-1)!.checkpoint));
    const after = h.sandbox.stats();
    expect(second).toEqual([
      { changes: [], checkpoint: first.at(-1)!.checkpoint, complete: false },
    ]);
    expect(after.requests - before.requests).toBe(1);
    expect(after.notModified - before.notModified).toBe(1);
    // The run's count: a 304, not a read.
    expect(gate.counters()).toMatchObject({
      reads: calls.reads,
      writes: calls.writes,
      notModified: calls.notModified + 1,
    });
  });

  it("stays on 304s in an empty repository", async () => {
    h = await startGithubHarness();
    const first = await collect(h.tracker.changes(undefined));
    const before = h.sandbox.stats();
    await collect(h.tracker.changes(first.at(-1)!.checkpoint));
    expect(h.sandbox.stats().notModified - before.notModified).toBe(1);
  });

  it("follows link headers across pages and reads comments only where there are some", async () => {
    h = await startGithubHarness();
    for (let n = 1; n <= 102; n++) await h.tracker.create(story(n));
    await h.tracker.addComment(
      { kind: "story", id: "5" },
      { author: { login: "alice" }, createdAt: "2024-01-01T00:00:00Z", body: "hello" },
    );
    const before = h.sandbox.stats();
    const listed = await collect(h.tracker.list({}));
    expect(listed).toHaveLength(102);
    expect(listed.find((i) => i.id === "5")?.comments.map((c) => c.body)).toEqual(["hello"]);
    const after = h.sandbox.stats();
    // Two list pages (the second from the link header) and one comments read.
    expect(after.requests - before.requests).toBe(3);
    expect(after.byRoute["GET /repositories/:id/issues"] ?? 0).toBeGreaterThanOrEqual(1);
  });

  it("yields a changed item once from an incremental feed, with its new fields", async () => {
    h = await startGithubHarness();
    const a = await h.tracker.create(story(1));
    const cp = (await collect(h.tracker.changes(undefined))).at(-1)!.checkpoint;
    await h.tracker.update({ kind: "story", id: a.id }, { set: { title: "renamed" } });
    const later = await collect(h.tracker.changes(cp));
    const ups = later.flatMap((p) => p.changes);
    expect(ups).toHaveLength(1);
    expect(ups[0]?.kind === "upsert" && ups[0].item.title).toBe("renamed");
    expect(later.every((p) => !p.complete)).toBe(true);
    const again = await collect(h.tracker.changes(later.at(-1)!.checkpoint));
    expect(again.flatMap((p) => p.changes)).toEqual([]);
  });

  it("reads sub-issues, labels, milestones and assignable users", async () => {
    h = await startGithubHarness();
    const parent = await h.tracker.create(story(1));
    const t1 = await h.tracker.create({ ...story(2), kind: "task", parentId: parent.id });
    const t2 = await h.tracker.create({ ...story(3), kind: "task", parentId: parent.id });
    const subs = await h.tracker.listSubIssues(parent.id);
    expect(subs.map((s) => s.id).sort()).toEqual([t1.id, t2.id].sort());
    const tasks = await collect(h.tracker.list({ kind: "task" }));
    expect(tasks.map((t) => [t.id, t.parentId])).toEqual(
      expect.arrayContaining([
        [t1.id, parent.id],
        [t2.id, parent.id],
      ]),
    );
    const stories = await collect(h.tracker.list({ kind: "story" }));
    expect(stories.map((s) => s.id)).toEqual([parent.id]);
    await h.tracker.ensureIteration({ name: "Sprint 1", goal: "ship", endDate: "2026-03-01" });
    expect(await h.tracker.listIterations()).toEqual([
      expect.objectContaining({ name: "Sprint 1", goal: "ship", endDate: "2026-03-01" }),
    ]);
    const users = await h.tracker.listUsers();
    expect(users).toContainEqual({ id: "alice", login: "alice" });
  });

  it("returns undefined for a missing issue and probes the repository", async () => {
    h = await startGithubHarness();
    expect(await h.tracker.get({ kind: "story", id: "4242" })).toBeUndefined();
    expect(await h.tracker.probe()).toMatchObject({
      reachable: true,
      authenticated: true,
      projectVisible: true,
      canWrite: true,
    });
    const reader = h.tracker2({ token: h.sandbox.readToken });
    expect((await reader.probe()).canWrite).toBe(false);
    const stranger = h.tracker2({ token: "ghp_wrongwrongwrongwrongwrongwrongwrong" });
    expect(await stranger.probe()).toMatchObject({ reachable: true, authenticated: false });
  });
});
