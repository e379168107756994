import { describe, expect, it } from "vitest";
import {
  generateDataset,
  parseGenerateSpec,
  ReferenceStore,
} from "../../src/reference-server/index.js";
import { recordTinypmWrites } from "./workers-history.js";

describe("recordTinypmWrites", () => {
  it("records every story and task write, the person's apart from the tool's, and writes as before", () => {
    const store = new ReferenceStore(
      generateDataset(parseGenerateSpec("stories=2,tasks=1"), 1, new Date()),
    );
    const rec = recordTinypmWrites(store);
    const [story] = store.storiesOf(1);
    if (story === undefined) throw new Error("no story");
    const { id, ...rest } = story;
    rec.person(() => store.replaceStory(id, { ...rest, name: "by hand" }));
    store.replaceStory(id, { ...rest, name: "by the tool", acceptanceStatus: "ACCEPTED" });
    const made = store.createTask({
      storyId: id,
      name: "new task",
      statusId: 1,
      assignedUserIds: [],
    });
    expect(store.storiesOf(1).find((s) => s.id === id)?.name).toBe("by the tool");
    expect(store.tasksOf(id).map((t) => t.id)).toContain(made.id);
    expect(rec.writes.map(({ at: _at, ...w }) => w)).toEqual([
      {
        by: "person",
        op: "replaceStory",
        kind: "story",
        id: String(id),
        name: "by hand",
        description: rest.description,
        status: rest.acceptanceStatus,
      },
      {
        by: "tool",
        op: "replaceStory",
        kind: "story",
        id: String(id),
        name: "by the tool",
        description: rest.description,
        status: "ACCEPTED",
      },
      {
        by: "tool",
        op: "createTask",
        kind: "task",
        id: String(made.id),
        name: "new task",
        description: undefined,
        status: "1",
      },
    ]);
  });
});
