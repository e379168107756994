import { afterEach, describe, expect, it } from "vitest";
import { exportProject } from "../../../src/adapters/tinypm/archive.js";
import { normalizeArchiveIds } from "../../../src/adapters/tinypm/archive-ids.js";
import type { WorkItem } from "../../../src/core/model.js";
import { startTinypm, type TinypmFixture } from "./setup.js";

const open: TinypmFixture[] = [];
afterEach(async () => {
  for (const f of open.splice(0)) await f.close();
});
async function start(...args: Parameters<typeof startTinypm>): Promise<TinypmFixture> {
  const f = await startTinypm(...args);
  open.push(f);
  return f;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe.each(["2.6", "2.5"] as const)("exportProject (%s)", (apiVersion) => {
  it("exports the project with every story field, tasks, comments and time entries, deterministically", async () => {
    const f = await start({ apiVersion });
    const progress: [number, number][] = [];
    const archive = await exportProject(f.tracker, { onProgress: (d, t) => progress.push([d, t]) });
    expect(progress.at(-1)).toEqual([5, 5]);
    expect(archive.format).toBe("tinypm-sync.export");
    expect(archive.apiVersion).toBe(apiVersion);
    expect(archive.stories).toHaveLength(5);
    const positions = archive.stories.map((s) => s.position ?? 0);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    const story = archive.stories[0]!;
    expect(Object.keys(story)).toEqual([
      "id",
      "name",
      "description",
      "priority",
      "estimatedEffort",
      "iteration",
      "color",
      "owner",
      "acceptingUser",
      "acceptanceStatus",
      "tags",
      "position",
      "comments",
      "tasks",
    ]);
    expect(story.tasks).toHaveLength(3);
    expect(Object.keys(story.tasks[0]!)).toEqual([
      "id",
      "name",
      "description",
      "status",
      "startedAt",
      "completedAt",
      "assignedUsers",
      "estimatedEffort",
      "comments",
      "timeEntries",
    ]);
    for (const u of archive.users) expect(u.login).toBeTruthy();
    const again = await exportProject({
      baseUrl: f.proxy.url,
      token: f.server.token,
      projectId: 1,
    });
    expect(again).toEqual(archive);
  });
});

describe("normalizeArchiveIds", () => {
  it("makes a copy of a project compare equal to the original, ids aside", async () => {
    const source = await start({ apiVersion: "2.6", generate: "small" });
    const target = await start({ apiVersion: "2.6", generate: "empty" });
    const items = await collect(source.tracker.list({}));
    const storyIds = new Map<string, string>();
    const copyFields = (i: WorkItem) => {
      const {
        system: _s,
        id: _id,
        comments: _c,
        timeEntries: _t,
        metadata: _m,
        parentId: _p,
        ...fields
      } = i;
      return fields;
    };
    for (const item of items) {
      const parentId = item.parentId === undefined ? undefined : storyIds.get(item.parentId);
      const created = await target.tracker.create({
        ...copyFields(item),
        ...(parentId !== undefined && { parentId }),
      });
      if (item.kind === "story") storyIds.set(item.id, created.id);
      const ref = { kind: item.kind, id: created.id };
      for (const c of item.comments)
        await target.tracker.addComment(ref, {
          author: c.author,
          createdAt: c.createdAt,
          body: c.body,
        });
      for (const e of item.timeEntries) await target.tracker.addTimeEntry(ref, e);
    }
    const a = normalizeArchiveIds(await exportProject(source.tracker));
    const b = normalizeArchiveIds(await exportProject(target.tracker));
    expect(a.stories.flatMap((s) => s.comments).length).toBeGreaterThan(0);
    expect(a.stories.flatMap((s) => s.tasks.flatMap((t) => t.timeEntries)).length).toBeGreaterThan(
      0,
    );
    expect(b.stories).toEqual(a.stories);
  });
});
