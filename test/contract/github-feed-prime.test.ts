import { afterEach, describe, expect, it } from "vitest";
import type { GithubTracker } from "../../src/adapters/github/index.js";
import type { ChangePage } from "../../src/core/tracker.js";
import {
  personSends as sendAsPerson,
  startGithubHarness,
  type GithubHarness,
} from "./github-setup.js";

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

/** A person's edit, made in the second of the migration's last write to the issue it is given. */
interface SameSecond {
  /** After the story's last write (its comment), or the task's (its create and sub-issue link). */
  readonly after: "commented" | "linked";
  readonly edit: (issue: string) => Promise<void>;
}

/** A migration's writes: a full listing first, then a story with a comment and a task under it. */
async function migrate(
  tracker: GithubTracker,
  person?: SameSecond,
): Promise<{ story: string; task: string }> {
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
  if (person?.after === "commented") await person.edit(story.id);
  clock += 1000;
  const task = await tracker.create({
    kind: "task",
    title: "Task",
    status: "closed:completed",
    assignees: [],
    labels: [],
  });
  await tracker.addSubIssue(story.id, task.id);
  if (person?.after === "linked") await person.edit(task.id);
  clock += 1000;
  return { story: story.id, task: task.id };
}

async function pagesFrom(tracker: GithubTracker, cp: unknown): Promise<ChangePage[]> {
  const out: ChangePage[] = [];
  for await (const page of tracker.changes(cp as never)) out.push(page);
  return out;
}

const personSends = (method: "POST" | "PATCH", path: string, body: unknown): Promise<void> =>
  sendAsPerson(h.sandbox, method, path, body);

const personPost = (path: string, body: unknown) => personSends("POST", path, body);

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

  it("sets it when the link stamps the task a second after its story, as GitHub may", async () => {
    // The sandbox's clock moves on at each reading while the link is made: the story (whose
    // answer the link returns) and the task it attaches are stamped in different seconds.
    let ticking = false;
    clock = Date.parse("2026-03-02T10:00:00Z");
    h = await startGithubHarness({ now: () => (ticking ? (clock += 700) : clock) });
    const tracker = h.tracker;
    for await (const item of tracker.list({})) expect(item.id).not.toBe("");
    const draft = { status: "open", assignees: [], labels: [] } as const;
    const story = await tracker.create({ kind: "story", title: "Story", ...draft });
    const task = await tracker.create({ kind: "task", title: "Task", ...draft });
    clock += 1000;
    ticking = true;
    await tracker.addSubIssue(story.id, task.id);
    ticking = false;
    clock += 1000;
    // Read past the tracker, whose own listing would remember what it lists.
    const s = h.sandbox;
    const res = await fetch(`${s.url}/repos/${s.owner}/${s.repo}/issues?state=all`, {
      headers: { authorization: `Bearer ${s.token}` },
    });
    const stamps = new Map(
      ((await res.json()) as { number: number; updated_at: string }[]).map((i) => [
        String(i.number),
        Date.parse(i.updated_at),
      ]),
    );
    expect(stamps.get(task.id)).toBeGreaterThan(stamps.get(story.id) ?? Infinity);
    expect(await tracker.checkpointAfterWrites()).toBeDefined();
  });

  it("sets it when a comment's issue is stamped a second after the comment, as GitHub may", async () => {
    // The clock moves on a second at each reading while the comment is posted: the comment and
    // the issue it moves are stamped in different seconds.
    let ticking = false;
    clock = Date.parse("2026-03-02T10:00:00Z");
    h = await startGithubHarness({ now: () => (ticking ? (clock += 1000) : clock) });
    const tracker = h.tracker;
    for await (const item of tracker.list({})) expect(item.id).not.toBe("");
    const draft = { status: "open", assignees: [], labels: [] } as const;
    const story = await tracker.create({ kind: "story", title: "Story", ...draft });
    clock += 1000;
    ticking = true;
    const comment = await tracker.addComment(
      { kind: "story", id: story.id },
      { author: { login: "alice" }, createdAt: "2026-01-01T00:00:00Z", body: "Said once" },
    );
    ticking = false;
    clock += 1000;
    const s = h.sandbox;
    const res = await fetch(`${s.url}/repos/${s.owner}/${s.repo}/issues/${story.id}`, {
      headers: { authorization: `Bearer ${s.token}` },
    });
    const issue = (await res.json()) as { updated_at: string };
    expect(Date.parse(issue.updated_at)).toBeGreaterThan(Date.parse(comment.createdAt));
    expect(await tracker.checkpointAfterWrites()).toBeDefined();
  });

  /** More than a page of issues written in a migration's last seconds, then its last story. */
  async function burst(tracker: GithubTracker): Promise<string> {
    for await (const item of tracker.list({})) expect(item.id).not.toBe("");
    const draft = { status: "open", assignees: [], labels: [] } as const;
    for (let i = 0; i < 110; i++) await tracker.create({ kind: "task", title: `T${i}`, ...draft });
    clock += 3000;
    return (await tracker.create({ kind: "story", title: "Last", ...draft })).id;
  }

  /** A sandbox whose clock runs on in real time from where the test sets it, and a burst. */
  async function startBurstRunningOn(
    trackerOptions: Parameters<typeof startGithubHarness>[1] = {},
  ): Promise<void> {
    const t0 = Date.now();
    clock = Date.parse("2026-03-02T10:00:00Z");
    h = await startGithubHarness({ now: () => clock + (Date.now() - t0) }, trackerOptions);
    await burst(h.tracker);
  }

  it("sets it past more than a page written in the last seconds, once GitHub's clock is past them", async () => {
    const tracker = await start();
    await burst(tracker);
    clock += 7000;
    const before = h.sandbox.stats();
    const cp = await tracker.checkpointAfterWrites();
    const primed = h.sandbox.stats();
    // The repository (2 pages), the overlap window (2 pages), the window's last second (1).
    expect(primed.requests - before.requests).toBe(5);
    const pages = await pagesFrom(tracker, cp);
    const after = h.sandbox.stats();
    expect(pages.flatMap((p) => p.changes)).toEqual([]);
    expect([after.requests - primed.requests, after.notModified - primed.notModified]).toEqual([
      1, 1,
    ]);
  });

  it("waits for GitHub's clock to pass a window of more than a page, then feeds what follows", async () => {
    await startBurstRunningOn();
    clock += 5000;
    const started = Date.now();
    const cp = await h.tracker.checkpointAfterWrites();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    const quiet = h.sandbox.stats();
    expect((await pagesFrom(h.tracker, cp)).flatMap((p) => p.changes)).toEqual([]);
    expect(h.sandbox.stats().notModified - quiet.notModified).toBe(1);
    // A person's comment a moment later is fed, the window's last second read again with it.
    await personPost("/issues/1/comments", { body: "A person's word" });
    const changed = (await pagesFrom(h.tracker, cp)).flatMap((p) => p.changes);
    expect(changed.map((c) => (c.kind === "upsert" ? c.item.id : ""))).toEqual(["1"]);
  });

  it("stops its wait for GitHub's clock with the reason the run was stopped for", async () => {
    const stop = new AbortController();
    const reason = new Error("stopped by Ctrl-C");
    // Ctrl-C half a second after the last answer before the wait (of a second at least): in the
    // wait, however long the listing took on a loaded machine.
    let stopping: ReturnType<typeof setTimeout> | undefined;
    let armed = false;
    await startBurstRunningOn({
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (armed) {
          clearTimeout(stopping);
          stopping = setTimeout(() => {
            stop.abort(reason);
          }, 500);
        }
        return res;
      },
    });
    armed = true;
    const started = Date.now();
    await expect(h.tracker.checkpointAfterWrites({ signal: stop.signal })).rejects.toBe(reason);
    clearTimeout(stopping);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("sets none when a person filed an issue after its listing, as it waits for GitHub's clock", async () => {
    // The person files it once the first listing has answered, before the adapter reads that
    // answer: after the listing, before the wait and the window's listing, whatever the load.
    let fileAfterListing = false;
    await startBurstRunningOn({
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        const url = input instanceof Request ? input.url : input.toString();
        if (fileAfterListing && url.includes("/issues?")) {
          fileAfterListing = false;
          await personPost("/issues", { title: "Filed meanwhile" });
        }
        return res;
      },
    });
    clock += 5000;
    fileAfterListing = true;
    const why: string[] = [];
    const cp = await h.tracker.checkpointAfterWrites({ onNone: (w) => why.push(w) });
    expect(fileAfterListing).toBe(false);
    expect(cp).toBeUndefined();
    expect(why[0]).toMatch(/^issue #112 was neither listed nor written by the migration$/);
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
    const why: string[] = [];
    expect(await tracker.checkpointAfterWrites({ onNone: (w) => why.push(w) })).toBeUndefined();
    // Said, naming the issue: the first sync will read everything because of it.
    expect(why).toHaveLength(1);
    expect(why[0]).toMatch(new RegExp(`^issue #${story} (was updated at|has 1 comments)`));
  });

  it("sets none when a person filed an issue during the migration", async () => {
    const tracker = await start();
    await migrate(tracker);
    await personPost("/issues", { title: "Filed meanwhile" });
    const why: string[] = [];
    expect(await tracker.checkpointAfterWrites({ onNone: (w) => why.push(w) })).toBeUndefined();
    expect(why).toHaveLength(1);
    expect(why[0]).toMatch(/^issue #\d+ was neither listed nor written by the migration$/);
  });

  // GitHub's `updated_at` has whole seconds: these edits list with the stamp of the migration's
  // own last write to the issue, and the same comment count; only the content tells them apart.
  it.each<[string, SameSecond["after"], Record<string, unknown>]>([
    ["title", "linked", { title: "Retitled by a person" }],
    ["body", "commented", { body: "Described by a person" }],
    ["labels", "linked", { labels: ["bug"] }],
    ["assignees", "commented", { assignees: ["bob"] }],
    ["state", "commented", { state: "closed", state_reason: "not_planned" }],
    ["state reason", "linked", { state_reason: "duplicate" }],
  ])(
    "sets none when a person edited the %s in the second of the migration's last write",
    async (_field, after, patch) => {
      const tracker = await start();
      await migrate(tracker, {
        after,
        edit: (issue) => personSends("PATCH", `/issues/${issue}`, patch),
      });
      expect(await tracker.checkpointAfterWrites()).toBeUndefined();
    },
  );

  it("sets none when a person set the milestone in the second of the migration's last write", async () => {
    const tracker = await start();
    await migrate(tracker, {
      after: "linked",
      edit: async (issue) => {
        await personPost("/milestones", { title: "Sprint 1" });
        await personSends("PATCH", `/issues/${issue}`, { milestone: 1 });
      },
    });
    expect(await tracker.checkpointAfterWrites()).toBeUndefined();
  });

  it("sets none when a person took the task out of its story in that second", async () => {
    const tracker = await start();
    const { story, task } = await migrate(tracker, {
      after: "linked",
      edit: async (number) => {
        const issues = `${h.sandbox.url}/repos/${h.sandbox.owner}/${h.sandbox.repo}/issues`;
        const headers = {
          authorization: `Bearer ${h.sandbox.token}`,
          "content-type": "application/json",
        };
        const child = (await (await fetch(`${issues}/${number}`, { headers })).json()) as {
          id: number;
          parent_issue_url: string;
        };
        const parent = child.parent_issue_url.split("/").pop() ?? "";
        const res = await fetch(`${issues}/${parent}/sub_issue`, {
          method: "DELETE",
          headers,
          body: JSON.stringify({ sub_issue_id: child.id }),
        });
        expect(res.status).toBe(200);
      },
    });
    // Only the task's parent tells the move: every stamp is of the migration's last second.
    const [storyNow, taskNow] = await Promise.all(
      [story, task].map(async (n) => {
        const res = await fetch(
          `${h.sandbox.url}/repos/${h.sandbox.owner}/${h.sandbox.repo}/issues/${n}`,
          { headers: { authorization: `Bearer ${h.sandbox.token}` } },
        );
        return (await res.json()) as { updated_at: string; parent_issue_url: string | null };
      }),
    );
    expect(taskNow?.parent_issue_url ?? null).toBeNull();
    expect(taskNow?.updated_at).toBe(storyNow?.updated_at);
    expect(await tracker.checkpointAfterWrites()).toBeUndefined();
  });

  it("sets none when a person commented on the story before the migration linked its task", async () => {
    const tracker = await start();
    // The link answers with the story, counting the person's comment beside the migration's.
    await migrate(tracker, {
      after: "commented",
      edit: (issue) => personPost(`/issues/${issue}/comments`, { body: "Meanwhile" }),
    });
    expect(await tracker.checkpointAfterWrites()).toBeUndefined();
  });

  it("sets none when a person retitled a task between its create and the close that ends it", async () => {
    let edit: ((issue: number) => Promise<void>) | undefined;
    // The close answers with the task, showing the person's title beside the state it wrote.
    const transport: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const then = edit;
      if (then !== undefined && init?.method === "POST" && res.status === 201) {
        edit = undefined;
        await then(((await res.clone().json()) as { number: number }).number);
      }
      return res;
    };
    h = await startGithubHarness({ now: () => clock }, { fetch: transport });
    for await (const item of h.tracker.list({})) expect(item.id).not.toBe("");
    edit = (issue) => personSends("PATCH", `/issues/${String(issue)}`, { title: "A person's" });
    await h.tracker.create({
      kind: "task",
      title: "Task",
      status: "closed:completed",
      assignees: [],
      labels: [],
    });
    expect(edit).toBeUndefined();
    expect(await h.tracker.checkpointAfterWrites()).toBeUndefined();
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
