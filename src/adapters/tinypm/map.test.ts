import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { UsageError } from "../../core/errors.js";
import { storyToItem, taskToItem, toIteration, toTimeEntry, type MapContext } from "./map.js";
import { applyStoryFields, applyTaskFields, changedFields } from "./patch.js";
import {
  rawIdObject,
  rawIterations,
  rawProject,
  rawStories,
  rawStory,
  rawTask,
  rawTimesheet,
  rawUsers,
  rawError,
} from "./schema.js";
import { parseXml, type XmlNode } from "./wire.js";

const FIXTURES = new URL("../../../test/fixtures/tinypm/adapter/", import.meta.url);
const limits = { maxBytes: 1 << 20, maxDepth: 32 };

function load<T extends z.ZodType>(file: string, schema: T): { node: XmlNode; data: z.infer<T> } {
  const { root } = parseXml(readFileSync(new URL(file, FIXTURES), "utf8"), limits);
  return { node: root as XmlNode, data: schema.parse(root) };
}

const alice = { id: "1", login: "alice", name: "Alice Smith", email: "alice@example.com" };
const bob = { id: "2", login: "bob", name: "Bob Jones", email: "bob@example.com" };
const project = load("project-2.6.xml", rawProject).data;
const ctx26: MapContext = {
  version: "2.6",
  statuses: (project.taskStatuses?.status ?? []).map((s) => ({ id: s.id, name: s.name ?? "" })),
  iterations: (load("iterations.xml", rawIterations).data.iteration ?? []).map((i) =>
    toIteration(i),
  ),
  users: [alice, bob],
};
const ctx25: MapContext = { ...ctx26, version: "2.5", statuses: [] };

describe("reading fixtures (tolerant reader)", () => {
  it("reads a 2.6 story: declaration, &#xD;, unicode, inline comments, tags, nested iteration", () => {
    const item = storyToItem(load("story-2.6.xml", rawStory).data, ctx26);
    expect(item).toEqual({
      system: "tinypm",
      kind: "story",
      id: "7",
      title: "Pay by card — “Ünïcode” & <tags>",
      description: "First line\r\nsecond line with 'quotes' and \"double\"",
      status: "PENDING",
      priority: "SHOULD_HAVE",
      estimate: 5,
      iteration: { id: "2", name: "Sprint 2" },
      assignees: [alice],
      acceptingUser: bob,
      labels: ["backend", "ünï"],
      color: "GREEN",
      position: 3,
      comments: [
        { author: alice, createdAt: "2012-02-04T21:17:47.765", body: "Looks good\r\nship it" },
        { author: { name: "Administrator" }, createdAt: "2012-02-05T08:00:00.000", body: "ok" },
      ],
      timeEntries: [],
      metadata: {},
    });
  });

  it("reads a 2.5 story without declaration and with missing optional elements", () => {
    const item = storyToItem(load("story-2.5.xml", rawStory).data, ctx25);
    expect(item).toMatchObject({
      id: "12",
      title: "Legacy story",
      status: "ACCEPTED",
      priority: "MUST_HAVE",
      assignees: [],
      labels: [],
      comments: [],
    });
    expect(item.description).toBeUndefined();
    expect(item.acceptingUser).toBeUndefined();
  });

  it("reads elements in any order, iterationId, a priority given by id, an empty tag wrapper", () => {
    const item = storyToItem(load("story-shuffled.xml", rawStory).data, ctx26);
    expect(item).toMatchObject({
      id: "0013",
      title: "Shuffled",
      status: "REJECTED",
      priority: "WONT_HAVE",
      iteration: { id: "3", name: "Sprint 3" },
      labels: [],
      position: 1,
    });
  });

  it("reads a 2.6 task: status object, two assignees, long dates, inline comments", () => {
    const item = taskToItem(load("task-2.6.xml", rawTask).data, ctx26, { storyId: "7" });
    expect(item).toMatchObject({
      kind: "task",
      id: "5",
      parentId: "7",
      description: "unit\r\ncontract",
      status: "TESTING",
      estimate: 2.5,
      startedAt: "2012-02-04T21:17:47.765",
      assignees: [bob, alice],
      comments: [{ author: bob, createdAt: "2012-02-06T10:11:12.013", body: "started" }],
    });
    expect(item.completedAt).toBeUndefined();
  });

  it("reads a 2.5 task: enum status and an empty assignee wrapper", () => {
    expect(taskToItem(load("task-2.5.xml", rawTask).data, ctx25)).toMatchObject({
      status: "IN_PROGRESS",
      assignees: [],
    });
  });

  it("shares what items have none of, frozen, and one page link among a story's tasks", () => {
    const ctx = { ...ctx25, webRoot: "https://pm.example.com/tinypm" };
    const raw = load("task-2.5.xml", rawTask).data;
    const [a, b] = [taskToItem(raw, ctx, { storyId: "7" }), taskToItem(raw, ctx, { storyId: "7" })];
    expect(a.assignees).toEqual([]);
    expect(a.assignees).toBe(b.assignees);
    expect(a.labels).toBe(b.labels);
    expect(a.metadata).toBe(b.metadata);
    expect(Object.isFrozen(a.labels) && Object.isFrozen(a.metadata)).toBe(true);
    expect(a.url).toBe("https://pm.example.com/tinypm/userStory/show/7");
    // A story's own lists are its own when it has any.
    const story = storyToItem(load("story-2.6.xml", rawStory).data, ctx26);
    expect(story.comments.length).toBeGreaterThan(0);
    expect(Object.isFrozen(story.comments)).toBe(false);
  });

  it("keeps the project's statuses in board order with non-contiguous ids", () => {
    expect(ctx26.statuses).toEqual([
      { id: "1", name: "TO DO" },
      { id: "2", name: "IN PROGRESS" },
      { id: "4", name: "TESTING" },
      { id: "3", name: "COMPLETED" },
    ]);
    expect(load("project-2.5.xml", rawProject).data.taskStatuses).toBeUndefined();
  });

  it("reads listings in alphabetical element order, timesheets, id objects and errors", () => {
    expect(load("users.xml", rawUsers).data.user?.map((u) => [u.id, u.name, u.active])).toEqual([
      ["1", "Alice Smith", "true"],
      ["2", "Bob Jones", "false"],
    ]);
    expect(load("stories-2.6.xml", rawStories).data.userStory?.map((s) => s.iterationId)).toEqual([
      "2",
      undefined,
    ]);
    expect(load("stories-2.5.xml", rawStories).data.userStory).toHaveLength(1);
    expect((load("timesheet.xml", rawTimesheet).data.activity ?? []).map(toTimeEntry)).toEqual([
      { user: alice, date: "2024-01-02", hours: 1.5, remainingHours: 0.5 },
      { user: bob, date: "2024-01-03", hours: 2 },
    ]);
    expect(load("id-object.xml", rawIdObject).data.id).toBe("42");
    expect(load("error-404.xml", rawError).data.message).toBe("User story 99 not found");
  });

  it("computes iteration end dates and states", () => {
    const [first] = (load("iterations.xml", rawIterations).data.iteration ?? []).map((i) =>
      toIteration(i, "2024-01-10"),
    );
    expect(first).toMatchObject({
      endDate: "2024-01-15",
      durationDays: 14,
      state: "active",
      plannedVelocity: 20,
    });
  });
});

describe("building PUT documents", () => {
  const story = load("story-2.6.xml", rawStory).node;
  const task = load("task-2.6.xml", rawTask).node;

  it.each([
    ["title", { title: "x" }, "name"],
    ["status", { status: "ACCEPTED" }, "acceptanceStatus"],
    ["labels", { labels: [] }, "tags"],
    ["color", { color: "RED" }, "color"],
    ["position", { position: 9 }, "position"],
    ["estimate", { estimate: 8 }, "estimatedEffort"],
  ])("never nulls a story field it did not mean to change (set %s)", (_label, set, element) => {
    const doc = applyStoryFields(story, set, ctx26);
    expect(Object.keys(doc).sort()).toEqual(Object.keys(story).sort());
    const untouched = (o: XmlNode) =>
      Object.entries(o).filter(
        ([k]) => k !== element && !["owner", "acceptingUser", "iteration"].includes(k),
      );
    expect(untouched(doc)).toEqual(untouched(story));
    expect(doc.owner).toEqual({ id: "1" });
    expect(doc.futureElement).toEqual({ nested: "kept" });
  });

  it("removes only the element of a field set to undefined", () => {
    const doc = applyStoryFields(story, { description: undefined }, ctx26);
    expect(doc.description).toBeUndefined();
    expect(Object.keys(doc).length).toBe(Object.keys(story).length - 1);
  });

  it("writes task status through the project's status ids, and refuses an unknown name", () => {
    const doc = applyTaskFields(task, { title: "renamed" }, ctx26);
    expect(doc.status).toEqual({ id: "4" });
    expect(doc.assignedUsers).toEqual({ user: [{ id: "2" }, { id: "1" }] });
    expect(doc.startedAt).toBe("2012-02-04 21:17:47.765");
    expect(applyTaskFields(task, { status: "COMPLETED" }, ctx26).status).toEqual({ id: "3" });
    expect(applyTaskFields(task, { status: "COMPLETED" }, ctx25).status).toBe("COMPLETED");
    expect(() => applyTaskFields(task, { status: "DONE" }, ctx26)).toThrow(UsageError);
    expect(() => applyTaskFields(task, { status: "DONE" }, ctx26)).toThrow(
      /TO DO, IN PROGRESS, TESTING, COMPLETED/,
    );
  });

  it("resolves users by login or unique name, and refuses unknown ones", () => {
    expect(applyStoryFields({}, { assignees: [{ login: "bob" }] }, ctx26).owner).toEqual({
      id: "2",
    });
    expect(
      applyStoryFields({}, { acceptingUser: { name: "Alice Smith" } }, ctx26).acceptingUser,
    ).toEqual({ id: "1" });
    expect(() => applyStoryFields({}, { assignees: [{ login: "zed" }] }, ctx26)).toThrow(
      UsageError,
    );
  });

  it("refuses an iteration that does not exist, saying tinyPM cannot create one", () => {
    expect(() => applyStoryFields({}, { iteration: { name: "Nope" } }, ctx26)).toThrow(
      /cannot create iterations/,
    );
  });
});

describe("changedFields", () => {
  it("compares users by id, iterations by name, labels in order", () => {
    const base = storyToItem(load("story-2.6.xml", rawStory).data, ctx26);
    expect(changedFields(base, { ...base, assignees: [{ id: "1" }] })).toEqual([]);
    expect(changedFields(base, { ...base, labels: ["ünï", "backend"], color: "RED" })).toEqual([
      "labels",
      "color",
    ]);
  });
});
