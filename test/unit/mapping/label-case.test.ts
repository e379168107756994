/** GitHub label names are case-insensitive: labels a person spelled in another case are the same. */
import { describe, expect, it } from "vitest";
import { defaultMapping, readBack, sampleStory, sampleTask } from "./fixtures.js";

const m = defaultMapping("github");

/** The labels as GitHub returns them when the repository spells them differently. */
const respelled = (labels: readonly string[]): string[] =>
  labels.map((l) =>
    l === "priority: must have"
      ? "Priority: MUST HAVE"
      : l === "status: in progress"
        ? "STATUS: In Progress"
        : l,
  );

describe("labels spelled in another case on GitHub", () => {
  it("read as the mapped value, not as an edit nor as a tag", () => {
    const item = sampleStory({ priority: "MUST_HAVE", labels: ["backend"] });
    const draft = m.toTarget(item);
    expect(draft.labels).toContain("priority: must have");
    const back = m.toTinypm(readBack(m, draft, item, { labels: respelled(draft.labels) }));
    expect(back.priority).toBe("MUST_HAVE");
    expect(back.labels).toEqual(["backend"]);
  });

  it("a task's status label in another case keeps its status", () => {
    const item = sampleTask({ status: "IN_PROGRESS" });
    const draft = m.toTarget(item);
    expect(draft.labels).toContain("status: in progress");
    const back = m.toTinypm(readBack(m, draft, item, { labels: respelled(draft.labels) }));
    expect(back.status).toBe("IN_PROGRESS");
  });

  it("the target values compare equal, so a sync sees no change to write", () => {
    const item = sampleStory({ priority: "MUST_HAVE" });
    const draft = m.toTarget(item);
    const read = readBack(m, draft, item, { labels: respelled(draft.labels) });
    const asWritten = readBack(m, draft, item);
    expect(m.toTinypm(read)).toEqual(m.toTinypm(asWritten));
    const task = sampleTask({ status: "IN_PROGRESS", priority: "MUST_HAVE" });
    const taskDraft = m.toTarget(task);
    expect(
      m.toTinypm(readBack(m, taskDraft, task, { labels: respelled(taskDraft.labels) })),
    ).toEqual(m.toTinypm(readBack(m, taskDraft, task)));
  });
});
