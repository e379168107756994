import { describe, expect, it } from "vitest";
import { createAction } from "./plan.js";
import { createParts, packCreateSources } from "./lazy-create.js";
import type { WorkItem } from "../../core/model.js";
import type { CreateAction } from "./plan-types.js";
import { bundledMapping, TEST_JOB, tinypmStory } from "../../../test/support/work-items.js";

const mapping = bundledMapping("github");
const input = { mapping, job: { ...TEST_JOB, direction: "both" as const } };

describe("a create action's payload", () => {
  const source = tinypmStory("7", {
    description: "<p>Some <b>text</b></p>",
    comments: [
      { id: "c1", author: { login: "ann" }, createdAt: "2024-01-01T10:00:00Z", body: "hi" },
    ],
  });

  it("is made from the source when read, the same value every time, and not held", () => {
    const action = createAction(input, "target", source);
    expect(action.draft).toEqual(action.draft);
    expect(action.draft).not.toBe(action.draft);
    expect(action.draft.marker).toMatchObject({ job: TEST_JOB.name, originId: "7" });
    expect(action.comments).toEqual([mapping.commentToTarget(source.comments[0]!)]);
    expect(action.timeEntries).toEqual(mapping.timeEntriesToTarget(source));
  });

  it("reads as plain data: JSON and createParts carry the payload", () => {
    const action = createAction(input, "target", {
      ...tinypmStory("9"),
      kind: "task",
      parentId: "7",
    });
    const parts = createParts(action);
    expect(Object.getOwnPropertyDescriptor(parts, "draft")).toMatchObject({ enumerable: true });
    expect("get" in (Object.getOwnPropertyDescriptor(parts, "draft") ?? {})).toBe(false);
    expect(parts).toMatchObject({
      type: "create",
      toSide: "target",
      kind: "task",
      title: "Story 9",
    });
    expect(parts.parentSourceId).toBe("7");
    expect(parts.draft).toEqual(action.draft);
    expect(parts.comments).toEqual(action.comments);
    const json = JSON.parse(JSON.stringify(action)) as Record<string, unknown>;
    expect(json).toEqual(JSON.parse(JSON.stringify(parts)));
    expect(Object.keys(json)).toEqual(
      expect.arrayContaining(["type", "source", "draft", "comments", "timeEntries"]),
    );
  });

  it("holds no closure or accessor of its own: every create shares its parts' getters", () => {
    const a = createAction(input, "target", tinypmStory("1"));
    const b = createAction(input, "tinypm", { ...tinypmStory("2"), system: "github" as const });
    // Own getters gave each create its own V8 hidden class (12.7 MB of them at 50,000 items).
    for (const action of [a, b])
      for (const name of Object.getOwnPropertyNames(action))
        expect(typeof Object.getOwnPropertyDescriptor(action, name)?.get).toBe("undefined");
    expect(Object.getOwnPropertyNames(a)).toEqual(Object.getOwnPropertyNames(b));
    expect(Object.getPrototypeOf(a)).toBe(Object.getPrototypeOf(b));
  });

  it("for tinyPM, leaves an empty description out", () => {
    const target = { ...tinypmStory("3", { description: "" }), system: "github" as const };
    const action = createAction(input, "tinypm", target);
    expect(action.draft.description).toBeUndefined();
  });
});

describe("a plan's creates with their sources packed", () => {
  const story = tinypmStory("7", {
    description: "<p>Some <b>text</b> — ünïcode</p>",
    comments: [
      { id: "c1", author: { login: "ann" }, createdAt: "2024-01-01T10:00:00Z", body: "hi" },
    ],
    timeEntries: [{ id: "t1", user: { login: "ann" }, date: "2024-01-02", hours: 2 }],
  });
  const task: WorkItem = { ...tinypmStory("9"), kind: "task", parentId: "7" };
  const skip = { type: "skip" as const, kind: "story" as const, title: "x" };

  it("read as before: the same source, payload and fields; other actions untouched", () => {
    const before = [
      createAction(input, "target", story),
      skip,
      createAction(input, "target", task),
    ];
    const after = packCreateSources(before);
    expect(after).toHaveLength(3);
    expect(after[1]).toBe(skip);
    for (const n of [0, 2]) {
      const [was, now] = [before[n] as CreateAction, after[n] as CreateAction];
      expect(now).not.toBe(was);
      expect(now.source).toEqual(was.source);
      expect(now.source).not.toBe(was.source);
      expect(createParts(now)).toEqual(createParts(was));
      expect(JSON.parse(JSON.stringify(now))).toEqual(JSON.parse(JSON.stringify(was)));
    }
    expect((after[2] as CreateAction).parentSourceId).toBe("7");
  });

  it("hold no source object of their own once packed, and are packed once", () => {
    const [packed] = packCreateSources([createAction(input, "target", story)]);
    // Nothing reachable from the create's own fields is the item: its source is in the pack.
    for (const name of Object.getOwnPropertyNames(packed))
      expect((packed as unknown as Record<string, unknown>)[name]).not.toEqual(story);
    expect(packCreateSources([packed!])[0]).toBe(packed);
  });
});
