import { describe, expect, it } from "vitest";
import { createAction } from "./plan.js";
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

  it("reads as a plain object: spread and JSON carry the payload", () => {
    const action = createAction(input, "target", {
      ...tinypmStory("9"),
      kind: "task",
      parentId: "7",
    });
    const spread = { ...action };
    expect("get" in (Object.getOwnPropertyDescriptor(spread, "draft") ?? {})).toBe(false);
    expect(spread.draft).toEqual(action.draft);
    const json = JSON.parse(JSON.stringify(action)) as { draft: unknown; comments: unknown };
    expect(json.draft).toEqual(JSON.parse(JSON.stringify(action.draft)));
    expect(Object.keys(action)).toEqual(
      expect.arrayContaining(["type", "source", "draft", "comments", "timeEntries"]),
    );
  });

  it("for tinyPM, leaves an empty description out", () => {
    const target = { ...tinypmStory("3", { description: "" }), system: "github" as const };
    const action = createAction(input, "tinypm", target);
    expect(action.draft.description).toBeUndefined();
  });
});
