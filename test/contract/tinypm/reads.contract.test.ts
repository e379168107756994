import { afterEach, describe, expect, it } from "vitest";
import type { WorkItem } from "../../../src/core/model.js";
import type { TieredScan } from "../../../src/core/tracker.js";
import { startTinypm, type TinypmFixture } from "./setup.js";

/** Issue #20: timesheets per iteration, complete listings used as they are, tiered reads. */
const GENERATE = "stories=21,tasks=3,comments=1";
let fx: TinypmFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

async function collect(items: AsyncIterable<WorkItem>): Promise<WorkItem[]> {
  const out: WorkItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The requests by route made while `fn` ran. */
async function routesOf(
  f: TinypmFixture,
  fn: () => Promise<unknown>,
): Promise<Record<string, number>> {
  const before = f.server.stats().byRoute;
  await fn();
  const after = f.server.stats().byRoute;
  return Object.fromEntries(
    Object.entries(after)
      .map(([route, n]) => [route, n - (before[route] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
}

/** Story ids by placement, from the server's own records. */
function placements(f: TinypmFixture) {
  const stories = f.server.store.storiesOf(1);
  const closed = new Set(
    f.server.store
      .iterationsOf(1)
      .filter((i) => i.id <= 2)
      .map((i) => i.id),
  );
  return {
    stories,
    backlog: stories.filter((s) => s.iterationId === undefined),
    closed: stories.filter((s) => s.iterationId !== undefined && closed.has(s.iterationId)),
    iterationsUsed: new Set(
      stories.flatMap((s) => (s.iterationId === undefined ? [] : [s.iterationId])),
    ),
  };
}

describe("tinyPM 2.6 full reads", () => {
  it("reads each iteration's timesheet once, and per task only outside iterations", async () => {
    fx = await startTinypm({ apiVersion: "2.6", generate: GENERATE });
    const f = fx;
    await f.tracker.listIterations(); // context first: its reads are not the scan's
    let items: WorkItem[] = [];
    const routes = await routesOf(f, async () => {
      items = await collect(f.tracker.list({}));
    });
    const p = placements(f);
    const tasks = items.filter((i) => i.kind === "task");
    expect(items.filter((i) => i.kind === "story")).toHaveLength(p.stories.length);
    expect(routes).toEqual({
      "GET /project/:id/userstories": 1,
      "GET /userstory/:id": p.stories.length,
      "GET /userstory/:id/tasks": p.stories.length,
      "GET /task/:id": tasks.length,
      "GET /iteration/:id/timesheet": p.iterationsUsed.size,
      "GET /task/:id/timesheet": p.backlog.length * 3,
    });
    // The same items as read one by one, with each task's own timesheet.
    expect(tasks.some((t) => t.timeEntries.length > 0)).toBe(true);
    for (const item of items) expect(await f.tracker.get(item)).toEqual(item);
  });

  it("uses complete listings as they are: one detail read per kind, the same items", async () => {
    const summaries = await startTinypm({ apiVersion: "2.6", generate: GENERATE });
    const expected = await collect(summaries.tracker.list({}));
    await summaries.close();
    fx = await startTinypm({ apiVersion: "2.6", generate: GENERATE, completeLists: true });
    const f = fx;
    await f.tracker.listIterations();
    let items: WorkItem[] = [];
    const routes = await routesOf(f, async () => {
      items = await collect(f.tracker.list({}));
    });
    // The two servers listen on different ports: the items' web links differ by origin only.
    const samePort = (i: WorkItem): WorkItem =>
      i.url === undefined ? i : { ...i, url: new URL(i.url).pathname };
    expect(items.map(samePort)).toEqual(expected.map(samePort));
    expect(items.find((i) => i.kind === "story")?.url).toMatch(/\/userStory\/show\/\d+$/);
    expect(routes["GET /userstory/:id"]).toBe(1);
    expect(routes["GET /task/:id"]).toBe(1);
    expect(routes["GET /userstory/:id/comments"]).toBeUndefined();
  });
});

describe("tinyPM tiered reads", () => {
  it.each(["2.6", "2.5"] as const)(
    "%s: splits the project into the open section and closed iterations from listings only",
    async (apiVersion) => {
      fx = await startTinypm({ apiVersion, generate: GENERATE });
      const f = fx;
      await f.tracker.listIterations();
      const p = placements(f);
      let scan: TieredScan | undefined;
      const routes = await routesOf(f, async () => {
        scan = await f.tracker.startTieredScan();
      });
      if (scan === undefined) throw new Error("no tiered scan");
      // 2.6 listings name each story's iteration; 2.5 needs one filtered listing per closed one.
      expect(routes).toEqual({ "GET /project/:id/userstories": apiVersion === "2.6" ? 1 : 3 });
      expect(scan.sections.map((s) => [s.key, s.closed, s.stories])).toEqual([
        ["open", false, p.stories.length - p.closed.length],
        ["closed:1", true, p.closed.filter((s) => s.iterationId === 1).length],
        ["closed:2", true, p.closed.filter((s) => s.iterationId === 2).length],
      ]);
      const open = await collect(scan.read(["open"]));
      const closedIds = new Set(p.closed.map((s) => String(s.id)));
      const openStories = open.filter((i) => i.kind === "story");
      expect(openStories).toHaveLength(p.stories.length - p.closed.length);
      expect(openStories.some((s) => closedIds.has(s.id))).toBe(false);
      // One item of a closed iteration, read on its own (a target-side change).
      const closedStory = p.closed[0];
      if (closedStory === undefined) throw new Error("no closed story");
      const one = await scan.readItems([{ kind: "story", id: String(closedStory.id) }]);
      expect(one.map((i) => i.id)).toEqual([String(closedStory.id)]);
      expect(await scan.readItems([{ kind: "story", id: "9999" }])).toEqual([]);
    },
  );

  it("changes a closed iteration's signature when a story is renamed, not when edited", async () => {
    fx = await startTinypm({ apiVersion: "2.6", generate: GENERATE });
    const f = fx;
    const p = placements(f);
    const before = await f.tracker.startTieredScan();
    const story = p.closed.find((s) => s.iterationId === 1);
    if (story === undefined) throw new Error("no story in Sprint 1");
    await f.tracker.update(
      { kind: "story", id: String(story.id) },
      { set: { description: "edited" } },
    );
    const same = await f.tracker.startTieredScan();
    expect(same.sections).toEqual(before.sections);
    await f.tracker.update({ kind: "story", id: String(story.id) }, { set: { title: "Renamed" } });
    const after = await f.tracker.startTieredScan();
    const sig = (s: TieredScan, key: string): string | undefined =>
      s.sections.find((x) => x.key === key)?.signature;
    expect(sig(after, "closed:1")).not.toBe(sig(before, "closed:1"));
    expect(sig(after, "closed:2")).toBe(sig(before, "closed:2"));
  });
});
